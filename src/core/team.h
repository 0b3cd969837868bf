/*
 * Work within one frame, shared with the context's idle workers.
 *
 * The context scores frames in parallel, one per worker; a worker with no
 * frame to take (one 4K frame, the end of a stream, a reader slower than the
 * pool) joins the frame another worker is scoring by running items of the
 * team jobs posted for it: the frame's independent extractors, one item each
 * (core/context.c), and the bands of rows those extractors post in turn. A
 * CPU extractor finds its team in TvmafVideoInfo (NULL when the context runs
 * on the calling thread).
 *
 * Items must be independent: each writes only its own outputs, and the
 * extractor combines the items' results after tvmaf_team_run returns in an
 * order that does not depend on which thread ran what (integer sums, or
 * per-row values added in row order), so the thread count changes no bit.
 */
#ifndef TVMAF_CORE_TEAM_H
#define TVMAF_CORE_TEAM_H

typedef struct TvmafTeam TvmafTeam;

/* item: which of the job's items; slot: which of the job's threads runs it,
 * below tvmaf_team_size() (the poster is 0), for per-thread scratch: no two
 * items run at once in the same slot. */
typedef void (*TvmafTeamFn)(void *arg, unsigned item, unsigned slot);

/* Threads that may run one job's items at once: 1 without a team. */
unsigned tvmaf_team_size(const TvmafTeam *team);

/* Runs fn(arg, i, slot) for every i < n on the calling thread and on the
 * workers that are idle meanwhile; returns when every item has run. Without
 * a team, or with one item, runs them in order on the calling thread.
 *
 * An item may post a job of its own (an extractor's bands). No wait can
 * close a cycle: a poster waits only for items other threads have started
 * and are running, a waiting poster starts nothing, and each job it waits
 * for was posted deeper inside the item it runs than that item's own job. */
void tvmaf_team_run(TvmafTeam *team, unsigned n, TvmafTeamFn fn, void *arg);

/* Bands of about equal rows for n_rows rows: enough for the team's threads
 * to share the work unevenly finished, none under min_rows rows. */
static inline unsigned tvmaf_team_bands(const TvmafTeam *team, unsigned n_rows,
                                        unsigned min_rows)
{
    if (!team) return 1;
    const unsigned want = 4 * tvmaf_team_size(team);
    const unsigned most = min_rows ? n_rows / min_rows : n_rows;
    const unsigned n = want < most ? want : most;
    return n ? n : 1;
}

/* The first row of band b of n over n_rows rows (band b is rows
 * [tvmaf_band_row(b), tvmaf_band_row(b + 1))). */
static inline unsigned tvmaf_band_row(unsigned b, unsigned n, unsigned n_rows)
{
    return (unsigned)((unsigned long long)n_rows * b / n);
}

#endif /* TVMAF_CORE_TEAM_H */
