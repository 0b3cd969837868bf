/*
 * The host executor: a backend (core/backend.h) and an executor of the twin
 * base (gpu/twin.h) that run every work-item of a twin's kernels on the CPU,
 * built from the same kernel text as the devices' (gpu/kernel.h with
 * TVD_HOST). Tests only: it is registered by tvmaf_registry_test_backend,
 * never by the library.
 *
 * It makes a plan's mistakes show instead of hiding them:
 *   - the work-items of a group that synchronise (TVD_SYNC) run as fibers;
 *     a barrier or warp shuffle is a real rendezvous, and the fibers resume
 *     from it in a new random order; a barrier some items skip is an error;
 *   - groups, and the items of a group that does not synchronise, run in a
 *     scrambled order;
 *   - local memory is poisoned at each group's start, buffers and mirrors
 *     when made, a mirror's range again when a download is queued (it
 *     lands only when the queue is waited for);
 *   - every buffer and frame plane sits against a guard page (an access past
 *     the end faults, and the fault names the kernel, group and item); frame
 *     planes have the pitch of the library's pictures, the padding past each
 *     row poisoned.
 * TVD_HOST_PROFILE=cuda (default) or opencl declares CUDA's caps or none, so
 * every decomposition a plan can choose runs here; "ladder" is CUDA's caps
 * with a reference area per twin (gpu/tvd.h), refilled from poison by the
 * pair itself on every frame, so a ladder's two passes run too;
 * TVD_HOST_SEED changes the orders and poison.
 */
#ifndef TVMAF_GPU_HOST_H
#define TVMAF_GPU_HOST_H

#include "core/backend.h"
#include "gpu/host/host_kernel.h"
#include "gpu/twin.h"

/* The devices' layout (gpu/exec_common.h), each plane in a mapping of its own. */
struct TvmafDeviceFrame {
    unsigned n_planes;
    unsigned char *plane[2][3]; /* [dis][p] */
    size_t pitch[3];
    unsigned pw[3], ph[3];
    unsigned bytes_per_sample;
    size_t copy_bytes, size; /* as a device's one buffer would have them */
};

extern const TvmafBackendOps tvd_host_backend;
extern const TvdExec tvd_exec_host;

/* The executor's and the backend's last error: none is ever kept. */
const char *tvd_host_last_error(void);

/* Registers the host backend and every plan's twin on it (call before the
 * library is first used). */
int tvd_host_register(void);

/* The operations every instance of feature `name` issued, added when the
 * instances close; and the frames they scored. */
int tvd_host_totals(const char *name, TvdCounts *c, unsigned long long *frames);
void tvd_host_totals_reset(void);

/* Operation n from now (a fill, copy, download, launch or mid-frame wait of
 * any instance, counted from 1) fails with -EIO, as a device's would; 0: none.
 * Whether it has been reached since. */
void tvd_host_fail_at(unsigned long long n);
bool tvd_host_fail_fired(void);

#endif
