/* cupti_cb_driver_ops.c: the table of driver calls that are operations, and how to
 * read bytes and directions out of their parameter structs. */
#include "cupti_cb_driver_ops.h"

/* cupti.h brings the parameter structs (generated_cuda_meta.h). */

#define CBID(f) CUPTI_DRIVER_TRACE_CBID_##f

/* ---- where memory lives ------------------------------------------------ */

static enum cupti_cb_dir direction(const struct cupti_cb_where *src, const struct cupti_cb_where *dst)
{
	if (!src->is_device)
		return dst->is_device ? CUPTI_CB_HTOD : CUPTI_CB_HTOH;
	if (!dst->is_device)
		return CUPTI_CB_DTOH;
	if (src->device >= 0 && dst->device >= 0 && src->device != dst->device)
		return CUPTI_CB_PEER;
	return CUPTI_CB_DTOD;
}

static void locate(const struct cupti_cb_resolver *r, CUdeviceptr p, struct cupti_cb_where *w)
{
	w->is_device = 0;
	w->device = -1;
	r->locate(r->arg, p, w);
}

/* A CU_MEMORYTYPE_* operand of a 2D/3D copy. */
static void operand(const struct cupti_cb_resolver *r, CUmemorytype type, const void *host,
		    CUdeviceptr dev, struct cupti_cb_where *w)
{
	switch (type) {
	case CU_MEMORYTYPE_HOST:
		w->is_device = 0;
		w->device = -1;
		break;
	case CU_MEMORYTYPE_DEVICE:
		locate(r, dev, w);
		w->is_device = 1;
		break;
	case CU_MEMORYTYPE_ARRAY:
		w->is_device = 1;
		w->device = -1;
		break;
	case CU_MEMORYTYPE_UNIFIED:
	default:
		locate(r, dev ? dev : (CUdeviceptr)(uintptr_t)host, w);
		break;
	}
}

static void add_copy(struct cupti_cb_effect *e, enum cupti_cb_dir d, uint64_t bytes)
{
	e->count++;
	e->dir_bytes[d] += bytes;
}

static void add_resolved(const struct cupti_cb_resolver *r, struct cupti_cb_effect *e,
			 CUdeviceptr src, CUdeviceptr dst, uint64_t bytes)
{
	struct cupti_cb_where s, d;
	locate(r, src, &s);
	locate(r, dst, &d);
	add_copy(e, direction(&s, &d), bytes);
}

/* One effect function per parameter struct: each reads its own struct type
 * and hands the fields to a shared helper. */
#define EFFECT(fn, type, ...)                                                           \
	static void fn(const void *p, const struct cupti_cb_resolver *r,                \
		       struct cupti_cb_effect *e)                                       \
	{                                                                               \
		const type *c = p;                                                      \
		(void)r;                                                                \
		__VA_ARGS__;                                                            \
	}

/* ---- copies with a fixed direction -------------------------------------- */

/* Every 1D copy struct of one direction has ByteCount; the struct type only
 * decides where it sits. */
#define FIXED_COPY(fn, type, dir) EFFECT(fn, type, add_copy(e, dir, c->ByteCount))

FIXED_COPY(htod, cuMemcpyHtoD_v2_params, CUPTI_CB_HTOD)
FIXED_COPY(htod_async, cuMemcpyHtoDAsync_v2_params, CUPTI_CB_HTOD)
FIXED_COPY(dtoh, cuMemcpyDtoH_v2_params, CUPTI_CB_DTOH)
FIXED_COPY(dtoh_async, cuMemcpyDtoHAsync_v2_params, CUPTI_CB_DTOH)
FIXED_COPY(htoa, cuMemcpyHtoA_v2_params, CUPTI_CB_HTOD)
FIXED_COPY(htoa_async, cuMemcpyHtoAAsync_v2_params, CUPTI_CB_HTOD)
FIXED_COPY(atoh, cuMemcpyAtoH_v2_params, CUPTI_CB_DTOH)
FIXED_COPY(atoh_async, cuMemcpyAtoHAsync_v2_params, CUPTI_CB_DTOH)
FIXED_COPY(dtoa, cuMemcpyDtoA_v2_params, CUPTI_CB_DTOD)
FIXED_COPY(atod, cuMemcpyAtoD_v2_params, CUPTI_CB_DTOD)
FIXED_COPY(atoa, cuMemcpyAtoA_v2_params, CUPTI_CB_DTOD)

/* ---- copies whose direction comes from the pointers --------------------- */

/* Device to device: both ends are device memory, but they may sit on two
 * devices, which makes it a peer copy. */
static void add_device_copy(const struct cupti_cb_resolver *r, struct cupti_cb_effect *e,
			    CUdeviceptr src, CUdeviceptr dst, uint64_t bytes)
{
	struct cupti_cb_where s, d;
	locate(r, src, &s);
	locate(r, dst, &d);
	s.is_device = d.is_device = 1;
	add_copy(e, direction(&s, &d), bytes);
}

EFFECT(dtod, cuMemcpyDtoD_v2_params, add_device_copy(r, e, c->srcDevice, c->dstDevice, c->ByteCount))

EFFECT(dtod_async, cuMemcpyDtoDAsync_v2_params, add_device_copy(r, e, c->srcDevice, c->dstDevice, c->ByteCount))

EFFECT(unified, cuMemcpy_params, add_resolved(r, e, c->src, c->dst, c->ByteCount))

EFFECT(unified_async, cuMemcpyAsync_params, add_resolved(r, e, c->src, c->dst, c->ByteCount))

static void peer_bytes(const struct cupti_cb_resolver *r, struct cupti_cb_effect *e,
		       CUcontext src, CUcontext dst, uint64_t bytes)
{
	int s = r->context_device(r->arg, src), d = r->context_device(r->arg, dst);
	add_copy(e, (s >= 0 && d >= 0 && s == d) ? CUPTI_CB_DTOD : CUPTI_CB_PEER, bytes);
}

EFFECT(peer, cuMemcpyPeer_params, peer_bytes(r, e, c->srcContext, c->dstContext, c->ByteCount))

EFFECT(peer_async, cuMemcpyPeerAsync_params, peer_bytes(r, e, c->srcContext, c->dstContext, c->ByteCount))

static void copy_2d(const CUDA_MEMCPY2D *c, const struct cupti_cb_resolver *r, struct cupti_cb_effect *e)
{
	struct cupti_cb_where s, d;
	if (!c)
		return;
	operand(r, c->srcMemoryType, c->srcHost, c->srcDevice, &s);
	operand(r, c->dstMemoryType, c->dstHost, c->dstDevice, &d);
	add_copy(e, direction(&s, &d), (uint64_t)c->WidthInBytes * c->Height);
}

static void copy_3d(const CUDA_MEMCPY3D *c, const struct cupti_cb_resolver *r, struct cupti_cb_effect *e)
{
	struct cupti_cb_where s, d;
	if (!c)
		return;
	operand(r, c->srcMemoryType, c->srcHost, c->srcDevice, &s);
	operand(r, c->dstMemoryType, c->dstHost, c->dstDevice, &d);
	add_copy(e, direction(&s, &d), (uint64_t)c->WidthInBytes * c->Height * c->Depth);
}

static void copy_3d_peer(const CUDA_MEMCPY3D_PEER *c, const struct cupti_cb_resolver *r,
			 struct cupti_cb_effect *e)
{
	if (c)
		peer_bytes(r, e, c->srcContext, c->dstContext,
			   (uint64_t)c->WidthInBytes * c->Height * c->Depth);
}

EFFECT(m2d, cuMemcpy2D_v2_params, copy_2d(c->pCopy, r, e))

EFFECT(m2d_async, cuMemcpy2DAsync_v2_params, copy_2d(c->pCopy, r, e))

EFFECT(m3d, cuMemcpy3D_v2_params, copy_3d(c->pCopy, r, e))

EFFECT(m3d_async, cuMemcpy3DAsync_v2_params, copy_3d(c->pCopy, r, e))

EFFECT(m3d_peer, cuMemcpy3DPeer_params, copy_3d_peer(c->pCopy, r, e))

EFFECT(m3d_peer_async, cuMemcpy3DPeerAsync_params, copy_3d_peer(c->pCopy, r, e))

/* A batch counts each of its copies. */
static void batch_copies(const struct cupti_cb_resolver *r, struct cupti_cb_effect *e,
			 CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t n)
{
	if (!dsts || !srcs || !sizes)
		return;
	for (size_t i = 0; i < n; i++)
		add_resolved(r, e, srcs[i], dsts[i], sizes[i]);
}

EFFECT(batch, cuMemcpyBatchAsync_params, batch_copies(r, e, c->dsts, c->srcs, c->sizes, c->count))

EFFECT(batch_v2, cuMemcpyBatchAsync_v2_params, batch_copies(r, e, c->dsts, c->srcs, c->sizes, c->count))

static void batch_operand(const struct cupti_cb_resolver *r, const CUmemcpy3DOperand *o,
			  struct cupti_cb_where *w)
{
	if (o->type == CU_MEMCPY_OPERAND_TYPE_POINTER) {
		locate(r, o->op.ptr.ptr, w);
	} else {
		w->is_device = 1;
		w->device = -1;
	}
}

/* For pointer operands the extent's width is in bytes; for arrays it is in
 * elements, and the element size is not in the parameters (man page). */
static void batch_3d_ops(const struct cupti_cb_resolver *r, struct cupti_cb_effect *e,
			 const CUDA_MEMCPY3D_BATCH_OP *ops, size_t n)
{
	if (!ops)
		return;
	for (size_t i = 0; i < n; i++) {
		struct cupti_cb_where s, d;
		batch_operand(r, &ops[i].src, &s);
		batch_operand(r, &ops[i].dst, &d);
		add_copy(e, direction(&s, &d),
			 (uint64_t)ops[i].extent.width * ops[i].extent.height * ops[i].extent.depth);
	}
}

EFFECT(batch_3d, cuMemcpy3DBatchAsync_params, batch_3d_ops(r, e, c->opList, c->numOps))

EFFECT(batch_3d_v2, cuMemcpy3DBatchAsync_v2_params, batch_3d_ops(r, e, c->opList, c->numOps))

/* ---- memsets ------------------------------------------------------------- */

#define MEMSET_1D(fn, type, elem) EFFECT(fn, type, e->count++; e->bytes += (uint64_t)c->N * (elem))

#define MEMSET_2D(fn, type, elem) \
	EFFECT(fn, type, e->count++; e->bytes += (uint64_t)c->Width * c->Height * (elem))

MEMSET_1D(set8, cuMemsetD8_v2_params, 1)
MEMSET_1D(set16, cuMemsetD16_v2_params, 2)
MEMSET_1D(set32, cuMemsetD32_v2_params, 4)
MEMSET_1D(set8_async, cuMemsetD8Async_params, 1)
MEMSET_1D(set16_async, cuMemsetD16Async_params, 2)
MEMSET_1D(set32_async, cuMemsetD32Async_params, 4)
MEMSET_2D(set2d8, cuMemsetD2D8_v2_params, 1)
MEMSET_2D(set2d16, cuMemsetD2D16_v2_params, 2)
MEMSET_2D(set2d32, cuMemsetD2D32_v2_params, 4)
MEMSET_2D(set2d8_async, cuMemsetD2D8Async_params, 1)
MEMSET_2D(set2d16_async, cuMemsetD2D16Async_params, 2)
MEMSET_2D(set2d32_async, cuMemsetD2D32Async_params, 4)

/* ---- allocations and frees ---------------------------------------------- */

#define ALLOC_DEV(fn, type) \
	EFFECT(fn, type, e->count++; e->bytes += c->bytesize; e->ptr = c->dptr ? *c->dptr : 0)

#define ALLOC_HOST(fn, type) \
	EFFECT(fn, type, e->count++; e->bytes += c->bytesize; \
	       e->ptr = c->pp ? (CUdeviceptr)(uintptr_t)*c->pp : 0)

ALLOC_DEV(alloc, cuMemAlloc_v2_params)
ALLOC_DEV(alloc_managed, cuMemAllocManaged_params)
ALLOC_DEV(alloc_async, cuMemAllocAsync_params)
ALLOC_DEV(alloc_pool, cuMemAllocFromPoolAsync_params)
ALLOC_HOST(alloc_host, cuMemAllocHost_v2_params)
ALLOC_HOST(host_alloc, cuMemHostAlloc_params)

static void alloc_pitch(const void *p, const struct cupti_cb_resolver *r, struct cupti_cb_effect *e)
{
	const cuMemAllocPitch_v2_params *a = p;
	(void)r;
	e->count++;
	e->bytes += (uint64_t)(a->pPitch ? *a->pPitch : a->WidthInBytes) * a->Height;
	e->ptr = a->dptr ? *a->dptr : 0;
}

#define FREE_OF(fn, type, field) EFFECT(fn, type, e->count++; e->ptr = (CUdeviceptr)(uintptr_t)c->field)

FREE_OF(free_dev, cuMemFree_v2_params, dptr)
FREE_OF(free_async, cuMemFreeAsync_params, dptr)
FREE_OF(free_host, cuMemFreeHost_params, p)

/* ---- CUDA arrays and mipmapped arrays ----------------------------------- */

/* Bytes of one array element. The plain formats hold NumChannels
 * components of 1, 2 or 4 bytes; the normalized formats name their channel
 * count (X1, X2, X4) and R10G10B10A2 packs four channels into 4 bytes.
 * Block-compressed (BC1-BC7) and video (NV12, P010, YUY2, ...) formats have
 * no whole number of bytes per element in the descriptor: 0 (man page). */
static uint64_t element_bytes(CUarray_format f, unsigned channels)
{
	switch ((unsigned)f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return channels;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2ull * channels;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4ull * channels;
	case CU_AD_FORMAT_UNORM_INT8X1:
	case CU_AD_FORMAT_SNORM_INT8X1:
		return 1;
	case CU_AD_FORMAT_UNORM_INT8X2:
	case CU_AD_FORMAT_SNORM_INT8X2:
	case CU_AD_FORMAT_UNORM_INT16X1:
	case CU_AD_FORMAT_SNORM_INT16X1:
		return 2;
	case CU_AD_FORMAT_UNORM_INT8X4:
	case CU_AD_FORMAT_SNORM_INT8X4:
	case CU_AD_FORMAT_UNORM_INT16X2:
	case CU_AD_FORMAT_SNORM_INT16X2:
	case 0x50:	/* CU_AD_FORMAT_UNORM_INT_101010_2 (not in every CUDA 12 header) */
		return 4;
	case CU_AD_FORMAT_UNORM_INT16X4:
	case CU_AD_FORMAT_SNORM_INT16X4:
		return 8;
	default:
		return 0;
	}
}

static uint64_t at_least_1(uint64_t n)
{
	return n ? n : 1;
}

/* A mipmap level is half the size of the one above in each dimension,
 * rounded down, and at least 1 (CUDA's rule). */
static uint64_t halve(uint64_t n)
{
	return n > 1 ? n / 2 : n;
}

/* Bytes of an array of 'levels' mipmap levels (1 for a plain array), as the
 * descriptor asks for them: width x height x depth elements per level, a
 * height or depth of 0 meaning 1 (1D and 2D arrays). Depth is the number of
 * layers of a layered array and the 6 faces of a cubemap; those do not
 * shrink from level to level. Sparse and deferred-mapping arrays get their
 * memory later, from cuMemMapArrayAsync: 0 bytes here. The driver pads
 * arrays for its own layout; that is not counted, as cuMemAlloc's rounding
 * is not. */
static uint64_t array_bytes(const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels)
{
	if (!d || (d->Flags & (CUDA_ARRAY3D_SPARSE | CUDA_ARRAY3D_DEFERRED_MAPPING)))
		return 0;
	uint64_t elem = element_bytes(d->Format, d->NumChannels), total = 0;
	uint64_t w = d->Width, h = d->Height, z = d->Depth;
	int layers = (d->Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
	for (unsigned l = 0; l < levels && l < 64; l++) {
		total += at_least_1(w) * at_least_1(h) * at_least_1(z) * elem;
		w = halve(w);
		h = halve(h);
		if (!layers)
			z = halve(z);
	}
	return total;
}

static CUdeviceptr array_key(const void *handle)
{
	return handle ? (CUdeviceptr)((uintptr_t)handle | CUPTI_CB_KEY_ARRAY) : 0;
}

static void array_2d(const void *p, const struct cupti_cb_resolver *r, struct cupti_cb_effect *e)
{
	const cuArrayCreate_v2_params *c = p;
	(void)r;
	e->count++;
	if (c->pAllocateArray) {
		CUDA_ARRAY3D_DESCRIPTOR d = { 0 };
		d.Width = c->pAllocateArray->Width;
		d.Height = c->pAllocateArray->Height;
		d.Format = c->pAllocateArray->Format;
		d.NumChannels = c->pAllocateArray->NumChannels;
		e->bytes += array_bytes(&d, 1);
	}
	e->ptr = c->pHandle ? array_key(*c->pHandle) : 0;
}

EFFECT(array_3d, cuArray3DCreate_v2_params, e->count++; e->bytes += array_bytes(c->pAllocateArray, 1);
       e->ptr = c->pHandle ? array_key(*c->pHandle) : 0)

EFFECT(mipmap, cuMipmappedArrayCreate_params, e->count++;
       e->bytes += array_bytes(c->pMipmappedArrayDesc, c->numMipmapLevels);
       e->ptr = c->pHandle ? array_key(*c->pHandle) : 0)

EFFECT(array_free, cuArrayDestroy_params, e->count++; e->ptr = array_key(c->hArray))

EFFECT(mipmap_free, cuMipmappedArrayDestroy_params, e->count++; e->ptr = array_key(c->hMipmappedArray))

/* ---- physical memory (virtual memory management) ------------------------ */

/* cuMemCreate allocates physical memory and returns a handle; the size is
 * a multiple of the allocation granularity, so what is asked for is what is
 * allocated. cuMemRelease frees it (once its mappings are gone). Reserving
 * and mapping addresses allocate nothing and are not counted. */
static CUdeviceptr phys_key(CUmemGenericAllocationHandle h)
{
	return h ? (CUdeviceptr)(h | CUPTI_CB_KEY_PHYS) : 0;
}

EFFECT(phys_alloc, cuMemCreate_params, e->count++; e->bytes += c->size;
       e->ptr = c->handle ? phys_key(*c->handle) : 0)

EFFECT(phys_free, cuMemRelease_params, e->count++; e->ptr = phys_key(c->handle))

/* ---- launches ------------------------------------------------------------ */

/* The legacy default stream: NULL in a call without the _ptsz suffix, or
 * CU_STREAM_LEGACY in any. NULL in a _ptsz call is the per-thread default
 * stream, which is not the legacy one; so is CU_STREAM_PER_THREAD. */
static int legacy_stream(CUstream s, int ptsz)
{
	return s == CU_STREAM_LEGACY || (!s && !ptsz);
}

static void add_launch(struct cupti_cb_effect *e, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
		       unsigned by, unsigned bz, unsigned smem, CUstream s, int ptsz)
{
	e->count++;
	e->threads += (uint64_t)gx * gy * gz * ((uint64_t)bx * by * bz);
	e->bytes += smem;
	e->legacy += (uint64_t)legacy_stream(s, ptsz);
}

#define LAUNCH(fn, type, ptsz)                                                                   \
	EFFECT(fn, type, add_launch(e, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, \
				    c->blockDimZ, c->sharedMemBytes, c->hStream, ptsz))

LAUNCH(launch, cuLaunchKernel_params, 0)
LAUNCH(launch_ptsz, cuLaunchKernel_ptsz_params, 1)
LAUNCH(launch_coop, cuLaunchCooperativeKernel_params, 0)
LAUNCH(launch_coop_ptsz, cuLaunchCooperativeKernel_ptsz_params, 1)

/* cuLaunchKernelEx: the grid is in blocks whatever the cluster shape, so
 * the cluster attribute changes nothing here. */
static void launch_config(const CUlaunchConfig *c, int ptsz, struct cupti_cb_effect *e)
{
	if (!c) {
		e->count++;
		return;
	}
	add_launch(e, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
		   c->sharedMemBytes, c->hStream, ptsz);
}

EFFECT(launch_ex, cuLaunchKernelEx_params, launch_config(c->config, 0, e))

EFFECT(launch_ex_ptsz, cuLaunchKernelEx_ptsz_params, launch_config(c->config, 1, e))

static void launch_multi(const void *p, const struct cupti_cb_resolver *r, struct cupti_cb_effect *e)
{
	const cuLaunchCooperativeKernelMultiDevice_params *m = p;
	(void)r;
	for (unsigned i = 0; i < m->numDevices; i++) {
		const CUDA_LAUNCH_PARAMS *l = m->launchParamsList ? &m->launchParamsList[i] : NULL;
		if (l)
			add_launch(e, l->gridDimX, l->gridDimY, l->gridDimZ, l->blockDimX, l->blockDimY,
				   l->blockDimZ, l->sharedMemBytes, l->hStream, 0);
		else
			e->count++;
	}
}

/* The pre-4.0 launches take their block shape and shared memory from
 * cuFuncSetBlockShape and cuFuncSetSharedSize, not from their parameters:
 * they add to the stream counts only (cupti_cb-callbacks(7)). */
EFFECT(launch_old, cuLaunch_params, (void)c; e->count++; e->legacy++)

EFFECT(launch_grid, cuLaunchGrid_params, (void)c; e->count++; e->legacy++)

EFFECT(launch_grid_async, cuLaunchGridAsync_params, e->count++; e->legacy += (uint64_t)legacy_stream(c->hStream, 0))

/* ---- the table ----------------------------------------------------------- */

/* Each _ptds/_ptsz variant has the parameter layout of its base function.
 * The pre-3.2 entry points (32-bit CUdeviceptr, 32-bit array extents:
 * cuArrayCreate, cuArray3DCreate) are left out: code built against any CUDA
 * header of the last fifteen years cannot call them.
 *
 * Deliberately not here (cupti_cb-diagnostics(7), LIMITATIONS): operations that
 * allocate, free, copy or launch nothing the events name. cuMemPoolImportPointer
 * and cuIpcOpenMemHandle/cuIpcCloseMemHandle map memory that another process
 * allocated; cuMemAddressReserve/cuMemAddressFree/cuMemMap/cuMemUnmap handle
 * addresses, not memory; cuMemPrefetchAsync and the batch prefetch/discard
 * calls migrate or drop managed memory as a hint, moving an amount of data
 * the parameters do not give; cuLaunchHostFunc runs a host function, not a
 * kernel. */
const struct cupti_cb_op cupti_cb_driver_ops[] = {
	{ CBID(cuLaunchKernel), CUPTI_CB_CLS_LAUNCH, launch },
	{ CBID(cuLaunchKernel_ptsz), CUPTI_CB_CLS_LAUNCH, launch_ptsz },
	{ CBID(cuLaunchKernelEx), CUPTI_CB_CLS_LAUNCH, launch_ex },
	{ CBID(cuLaunchKernelEx_ptsz), CUPTI_CB_CLS_LAUNCH, launch_ex_ptsz },
	{ CBID(cuLaunchCooperativeKernel), CUPTI_CB_CLS_LAUNCH, launch_coop },
	{ CBID(cuLaunchCooperativeKernel_ptsz), CUPTI_CB_CLS_LAUNCH, launch_coop_ptsz },
	{ CBID(cuLaunchCooperativeKernelMultiDevice), CUPTI_CB_CLS_LAUNCH, launch_multi },
	{ CBID(cuLaunch), CUPTI_CB_CLS_LAUNCH, launch_old },
	{ CBID(cuLaunchGrid), CUPTI_CB_CLS_LAUNCH, launch_grid },
	{ CBID(cuLaunchGridAsync), CUPTI_CB_CLS_LAUNCH, launch_grid_async },

	{ CBID(cuGraphLaunch), CUPTI_CB_CLS_GRAPH, NULL },
	{ CBID(cuGraphLaunch_ptsz), CUPTI_CB_CLS_GRAPH, NULL },

	{ CBID(cuMemcpyHtoD_v2), CUPTI_CB_CLS_MEMCPY, htod },
	{ CBID(cuMemcpyHtoD_v2_ptds), CUPTI_CB_CLS_MEMCPY, htod },
	{ CBID(cuMemcpyHtoDAsync_v2), CUPTI_CB_CLS_MEMCPY, htod_async },
	{ CBID(cuMemcpyHtoDAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, htod_async },
	{ CBID(cuMemcpyDtoH_v2), CUPTI_CB_CLS_MEMCPY, dtoh },
	{ CBID(cuMemcpyDtoH_v2_ptds), CUPTI_CB_CLS_MEMCPY, dtoh },
	{ CBID(cuMemcpyDtoHAsync_v2), CUPTI_CB_CLS_MEMCPY, dtoh_async },
	{ CBID(cuMemcpyDtoHAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, dtoh_async },
	{ CBID(cuMemcpyDtoD_v2), CUPTI_CB_CLS_MEMCPY, dtod },
	{ CBID(cuMemcpyDtoD_v2_ptds), CUPTI_CB_CLS_MEMCPY, dtod },
	{ CBID(cuMemcpyDtoDAsync_v2), CUPTI_CB_CLS_MEMCPY, dtod_async },
	{ CBID(cuMemcpyDtoDAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, dtod_async },
	{ CBID(cuMemcpyHtoA_v2), CUPTI_CB_CLS_MEMCPY, htoa },
	{ CBID(cuMemcpyHtoA_v2_ptds), CUPTI_CB_CLS_MEMCPY, htoa },
	{ CBID(cuMemcpyHtoAAsync_v2), CUPTI_CB_CLS_MEMCPY, htoa_async },
	{ CBID(cuMemcpyHtoAAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, htoa_async },
	{ CBID(cuMemcpyAtoH_v2), CUPTI_CB_CLS_MEMCPY, atoh },
	{ CBID(cuMemcpyAtoH_v2_ptds), CUPTI_CB_CLS_MEMCPY, atoh },
	{ CBID(cuMemcpyAtoHAsync_v2), CUPTI_CB_CLS_MEMCPY, atoh_async },
	{ CBID(cuMemcpyAtoHAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, atoh_async },
	{ CBID(cuMemcpyDtoA_v2), CUPTI_CB_CLS_MEMCPY, dtoa },
	{ CBID(cuMemcpyDtoA_v2_ptds), CUPTI_CB_CLS_MEMCPY, dtoa },
	{ CBID(cuMemcpyAtoD_v2), CUPTI_CB_CLS_MEMCPY, atod },
	{ CBID(cuMemcpyAtoD_v2_ptds), CUPTI_CB_CLS_MEMCPY, atod },
	{ CBID(cuMemcpyAtoA_v2), CUPTI_CB_CLS_MEMCPY, atoa },
	{ CBID(cuMemcpyAtoA_v2_ptds), CUPTI_CB_CLS_MEMCPY, atoa },
	{ CBID(cuMemcpy), CUPTI_CB_CLS_MEMCPY, unified },
	{ CBID(cuMemcpy_ptds), CUPTI_CB_CLS_MEMCPY, unified },
	{ CBID(cuMemcpyAsync), CUPTI_CB_CLS_MEMCPY, unified_async },
	{ CBID(cuMemcpyAsync_ptsz), CUPTI_CB_CLS_MEMCPY, unified_async },
	{ CBID(cuMemcpyPeer), CUPTI_CB_CLS_MEMCPY, peer },
	{ CBID(cuMemcpyPeer_ptds), CUPTI_CB_CLS_MEMCPY, peer },
	{ CBID(cuMemcpyPeerAsync), CUPTI_CB_CLS_MEMCPY, peer_async },
	{ CBID(cuMemcpyPeerAsync_ptsz), CUPTI_CB_CLS_MEMCPY, peer_async },
	{ CBID(cuMemcpy2D_v2), CUPTI_CB_CLS_MEMCPY, m2d },
	{ CBID(cuMemcpy2D_v2_ptds), CUPTI_CB_CLS_MEMCPY, m2d },
	{ CBID(cuMemcpy2DUnaligned_v2), CUPTI_CB_CLS_MEMCPY, m2d },
	{ CBID(cuMemcpy2DUnaligned_v2_ptds), CUPTI_CB_CLS_MEMCPY, m2d },
	{ CBID(cuMemcpy2DAsync_v2), CUPTI_CB_CLS_MEMCPY, m2d_async },
	{ CBID(cuMemcpy2DAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, m2d_async },
	{ CBID(cuMemcpy3D_v2), CUPTI_CB_CLS_MEMCPY, m3d },
	{ CBID(cuMemcpy3D_v2_ptds), CUPTI_CB_CLS_MEMCPY, m3d },
	{ CBID(cuMemcpy3DAsync_v2), CUPTI_CB_CLS_MEMCPY, m3d_async },
	{ CBID(cuMemcpy3DAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, m3d_async },
	{ CBID(cuMemcpy3DPeer), CUPTI_CB_CLS_MEMCPY, m3d_peer },
	{ CBID(cuMemcpy3DPeer_ptds), CUPTI_CB_CLS_MEMCPY, m3d_peer },
	{ CBID(cuMemcpy3DPeerAsync), CUPTI_CB_CLS_MEMCPY, m3d_peer_async },
	{ CBID(cuMemcpy3DPeerAsync_ptsz), CUPTI_CB_CLS_MEMCPY, m3d_peer_async },
	{ CBID(cuMemcpyBatchAsync), CUPTI_CB_CLS_MEMCPY, batch },
	{ CBID(cuMemcpyBatchAsync_ptsz), CUPTI_CB_CLS_MEMCPY, batch },
	{ CBID(cuMemcpyBatchAsync_v2), CUPTI_CB_CLS_MEMCPY, batch_v2 },
	{ CBID(cuMemcpyBatchAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, batch_v2 },
	{ CBID(cuMemcpy3DBatchAsync), CUPTI_CB_CLS_MEMCPY, batch_3d },
	{ CBID(cuMemcpy3DBatchAsync_ptsz), CUPTI_CB_CLS_MEMCPY, batch_3d },
	{ CBID(cuMemcpy3DBatchAsync_v2), CUPTI_CB_CLS_MEMCPY, batch_3d_v2 },
	{ CBID(cuMemcpy3DBatchAsync_v2_ptsz), CUPTI_CB_CLS_MEMCPY, batch_3d_v2 },

	{ CBID(cuMemsetD8_v2), CUPTI_CB_CLS_MEMSET, set8 },
	{ CBID(cuMemsetD8_v2_ptds), CUPTI_CB_CLS_MEMSET, set8 },
	{ CBID(cuMemsetD16_v2), CUPTI_CB_CLS_MEMSET, set16 },
	{ CBID(cuMemsetD16_v2_ptds), CUPTI_CB_CLS_MEMSET, set16 },
	{ CBID(cuMemsetD32_v2), CUPTI_CB_CLS_MEMSET, set32 },
	{ CBID(cuMemsetD32_v2_ptds), CUPTI_CB_CLS_MEMSET, set32 },
	{ CBID(cuMemsetD8Async), CUPTI_CB_CLS_MEMSET, set8_async },
	{ CBID(cuMemsetD8Async_ptsz), CUPTI_CB_CLS_MEMSET, set8_async },
	{ CBID(cuMemsetD16Async), CUPTI_CB_CLS_MEMSET, set16_async },
	{ CBID(cuMemsetD16Async_ptsz), CUPTI_CB_CLS_MEMSET, set16_async },
	{ CBID(cuMemsetD32Async), CUPTI_CB_CLS_MEMSET, set32_async },
	{ CBID(cuMemsetD32Async_ptsz), CUPTI_CB_CLS_MEMSET, set32_async },
	{ CBID(cuMemsetD2D8_v2), CUPTI_CB_CLS_MEMSET, set2d8 },
	{ CBID(cuMemsetD2D8_v2_ptds), CUPTI_CB_CLS_MEMSET, set2d8 },
	{ CBID(cuMemsetD2D16_v2), CUPTI_CB_CLS_MEMSET, set2d16 },
	{ CBID(cuMemsetD2D16_v2_ptds), CUPTI_CB_CLS_MEMSET, set2d16 },
	{ CBID(cuMemsetD2D32_v2), CUPTI_CB_CLS_MEMSET, set2d32 },
	{ CBID(cuMemsetD2D32_v2_ptds), CUPTI_CB_CLS_MEMSET, set2d32 },
	{ CBID(cuMemsetD2D8Async), CUPTI_CB_CLS_MEMSET, set2d8_async },
	{ CBID(cuMemsetD2D8Async_ptsz), CUPTI_CB_CLS_MEMSET, set2d8_async },
	{ CBID(cuMemsetD2D16Async), CUPTI_CB_CLS_MEMSET, set2d16_async },
	{ CBID(cuMemsetD2D16Async_ptsz), CUPTI_CB_CLS_MEMSET, set2d16_async },
	{ CBID(cuMemsetD2D32Async), CUPTI_CB_CLS_MEMSET, set2d32_async },
	{ CBID(cuMemsetD2D32Async_ptsz), CUPTI_CB_CLS_MEMSET, set2d32_async },

	{ CBID(cuMemAlloc_v2), CUPTI_CB_CLS_ALLOC, alloc },
	{ CBID(cuMemAllocPitch_v2), CUPTI_CB_CLS_ALLOC, alloc_pitch },
	{ CBID(cuMemAllocManaged), CUPTI_CB_CLS_ALLOC, alloc_managed },
	{ CBID(cuMemAllocAsync), CUPTI_CB_CLS_ALLOC, alloc_async },
	{ CBID(cuMemAllocAsync_ptsz), CUPTI_CB_CLS_ALLOC, alloc_async },
	{ CBID(cuMemAllocFromPoolAsync), CUPTI_CB_CLS_ALLOC, alloc_pool },
	{ CBID(cuMemAllocFromPoolAsync_ptsz), CUPTI_CB_CLS_ALLOC, alloc_pool },
	{ CBID(cuMemAllocHost_v2), CUPTI_CB_CLS_ALLOC, alloc_host },
	{ CBID(cuMemHostAlloc), CUPTI_CB_CLS_ALLOC, host_alloc },
	{ CBID(cuArrayCreate_v2), CUPTI_CB_CLS_ALLOC, array_2d },
	{ CBID(cuArray3DCreate_v2), CUPTI_CB_CLS_ALLOC, array_3d },
	{ CBID(cuMipmappedArrayCreate), CUPTI_CB_CLS_ALLOC, mipmap },
	{ CBID(cuMemCreate), CUPTI_CB_CLS_ALLOC, phys_alloc },

	{ CBID(cuMemFree_v2), CUPTI_CB_CLS_FREE, free_dev },
	{ CBID(cuMemFreeAsync), CUPTI_CB_CLS_FREE, free_async },
	{ CBID(cuMemFreeAsync_ptsz), CUPTI_CB_CLS_FREE, free_async },
	{ CBID(cuMemFreeHost), CUPTI_CB_CLS_FREE, free_host },
	{ CBID(cuArrayDestroy), CUPTI_CB_CLS_FREE, array_free },
	{ CBID(cuMipmappedArrayDestroy), CUPTI_CB_CLS_FREE, mipmap_free },
	{ CBID(cuMemRelease), CUPTI_CB_CLS_FREE, phys_free },

	{ CBID(cuCtxSynchronize), CUPTI_CB_CLS_SYNC, NULL },
	{ CBID(cuCtxSynchronize_v2), CUPTI_CB_CLS_SYNC, NULL },
	{ CBID(cuStreamSynchronize), CUPTI_CB_CLS_SYNC, NULL },
	{ CBID(cuStreamSynchronize_ptsz), CUPTI_CB_CLS_SYNC, NULL },
	{ CBID(cuEventSynchronize), CUPTI_CB_CLS_SYNC, NULL },
};

const size_t cupti_cb_n_driver_ops = sizeof cupti_cb_driver_ops / sizeof cupti_cb_driver_ops[0];

const struct cupti_cb_op *cupti_cb_op_find(CUpti_CallbackId cbid)
{
	for (size_t i = 0; i < cupti_cb_n_driver_ops; i++)
		if (cupti_cb_driver_ops[i].cbid == cbid)
			return &cupti_cb_driver_ops[i];
	return NULL;
}
