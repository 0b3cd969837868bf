/* The CUDA backend's failure paths (tests/gpu/failure_common.h). Exits 77
 * without a device. */
#include "gpu/cuda/cuda_runtime.h"
#include "gpu/failure_common.h"

int main(void)
{
    if (!tvmaf_cuda_available()) {
        printf("no usable CUDA device: skipped\n");
        return 77;
    }
    return gpu_failure_main(TVMAF_BACKEND_CUDA, "cuda", tvmaf_cuda_inject_launch_failure);
}
