/* Builds without nvcc: no CUDA device is ever usable. */
#include "tvmaf/tvmaf.h"

int tvmaf_cuda_available(void)
{
    return 0;
}
