/*
 * speed_chroma's singular-covariance warning names the stream's first such
 * frame whatever order the workers scored the frames in: each instance keeps
 * its least frame, merge takes the least of two, flush says it once, and a
 * flushed context appended to another passes nothing on. The warning is
 * read back from stderr.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "feature/speed/speed_state.h"

extern const TvmafExtractor tvmaf_fex_speed_chroma;

/* Runs the merges of srcs into dst and two flushes of dst with stderr sent
 * to a file; returns what was written there. */
static void run(SpeedChromaParams *dst, SpeedChromaParams *const *srcs, int n, char *out,
                size_t len)
{
    const TvmafExtractor *ex = &tvmaf_fex_speed_chroma;
    FILE *f = tmpfile();
    fflush(stderr);
    const int saved = dup(2);
    dup2(fileno(f), 2);
    for (int k = 0; k < n; k++) CHECK(ex->merge(dst, srcs[k]) == 0, "merge %d", k);
    CHECK(ex->flush(dst, NULL) == 0, "flush");
    CHECK(ex->flush(dst, NULL) == 0, "second flush");
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(f);
    const size_t got = fread(out, 1, len - 1, f);
    out[got] = '\0';
    fclose(f);
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
    return n;
}

static SpeedChromaParams instance(unsigned first, bool warned)
{
    SpeedChromaParams p;
    memset(&p, 0, sizeof(p));
    p.first_singular = first;
    p.singular_warned = warned;
    return p;
}

int main(void)
{
    char out[1024];
    CHECK(tvmaf_fex_speed_chroma.merge && tvmaf_fex_speed_chroma.flush,
          "speed_chroma needs merge and flush for its warning");
    if (failures) return 1;

    /* workers that met singular images at frames 7 and 3 (and one at none):
     * one warning, naming frame 3 */
    SpeedChromaParams a = instance(7, false), b = instance(3, false), c = instance(UINT_MAX, false);
    run(&a, (SpeedChromaParams *const[]){ &b, &c }, 2, out, sizeof(out));
    CHECK(count(out, "covariance matrix is singular") == 1, "one warning: %s", out);
    CHECK(strstr(out, "speed_chroma") && strstr(out, "first at frame 3;"), "frame 3: %s", out);

    /* the first instance met none, a later one frame 12 */
    SpeedChromaParams d = instance(UINT_MAX, false), e = instance(12, false);
    run(&d, (SpeedChromaParams *const[]){ &e }, 1, out, sizeof(out));
    CHECK(count(out, "first at frame 12;") == 1, "frame 12: %s", out);

    /* none at all: nothing said */
    SpeedChromaParams g = instance(UINT_MAX, false), h = instance(UINT_MAX, false);
    run(&g, (SpeedChromaParams *const[]){ &h }, 1, out, sizeof(out));
    CHECK(out[0] == '\0', "no warning: %s", out);

    /* a context appended after its own flush warned already: not again */
    SpeedChromaParams i = instance(UINT_MAX, false), j = instance(2, true);
    run(&i, (SpeedChromaParams *const[]){ &j }, 1, out, sizeof(out));
    CHECK(out[0] == '\0', "no second warning: %s", out);

    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
