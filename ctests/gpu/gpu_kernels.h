/*
 * gpu_kernels.h: the kernels of the hardware-metric tests, whose counts can be checked:
 * stream_read loads every float4 of a buffer once (dram__bytes_read.sum = its size, when the
 * buffer is not in the L2), stream_write stores every float4 of a buffer once (dram__bytes_write.sum
 * = its size once the L2 has written its lines back), and fixed_work runs a fixed instruction stream (the same
 * smsp__inst_executed.sum at every launch of the same grid).
 */
#ifndef GPU_KERNELS_H
#define GPU_KERNELS_H

#include <cuda_runtime.h>

__global__ void stream_read(const float4 *p, size_t n, float *out)
{
    float s = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = p[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == 12345.0f) /* never: the buffer holds zeros; keeps every load */
        out[0] = s;
}

/* Full 16-byte stores by consecutive threads: whole sectors, so the L2 writes them back without
 * reading DRAM first.  v = 0 keeps a buffer that stream_read expects to hold zeros. */
__global__ void stream_write(float4 *p, size_t n, float v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_float4(v, v, v, v);
}

__global__ void fixed_work(unsigned *out, int iters)
{
    unsigned x = threadIdx.x;
    for (int i = 0; i < iters; i++)
        x = x * 1664525u + 1013904223u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

#endif /* GPU_KERNELS_H */
