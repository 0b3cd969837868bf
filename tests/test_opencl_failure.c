/* The OpenCL backend's failure paths (tests/gpu/failure_common.h; ciede, which
 * has no OpenCL twin, runs on the CPU in both runs). Exits 77 without an
 * OpenCL device (PoCL's CPU device counts). */
#include "gpu/opencl/opencl_runtime.h"
#include "gpu/failure_common.h"

int main(void)
{
    if (tvmaf_cl_device_count() < 1) {
        printf("no usable OpenCL device: skipped\n");
        return 77;
    }
    return gpu_failure_main(TVMAF_BACKEND_OPENCL, "opencl", tvmaf_cl_inject_launch_failure,
                            "injected");
}
