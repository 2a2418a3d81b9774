/*
 * fake_activity.c: the Activity API half of the test-only fake libcupti (linked into
 * fake/libcupti.so with fake_cupti.c; control API in fake_cuda.h).
 *
 * A test plays records (fake_activity_kernel, _memcpy, _memset) of the kinds that are enabled;
 * they wait in a queue until cuptiActivityFlushAll, which does what CUPTI does: asks the
 * registered bufferRequested for a buffer, writes the records into it as the structures of
 * cupti_activity.h, each at an 8-byte aligned offset, and hands it to bufferCompleted with the
 * number of valid bytes.  cuptiActivityGetNextRecord walks that layout.  Records for which no
 * buffer is given are dropped and counted, as are those fake_activity_drop() adds; both come back
 * from cuptiActivityGetNumDroppedRecords, which resets the count.
 *
 * The subscriber-scoped _v2 entry points of CUPTI 13.2 do the same for a valid subscriber handle;
 * which kind of entry point was called is counted.  One registration at a time: the last one,
 * process-wide or scoped, receives the buffers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti_activity.h>

#include "fake_cuda.h"

#define QUEUE_MAX 65536

union fake_record {
    CUpti_Activity any;
    CUpti_ActivityKernel10 kernel;
    CUpti_ActivityMemcpy6 memcpy;
    CUpti_ActivityMemset4 memset;
    CUpti_ActivityMemcpyPtoP4 peer;
};

static pthread_mutex_t alock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_BuffersCallbackRequestFunc requested;
static CUpti_BuffersCallbackCompleteFunc completed;
static CUptiResult register_err = CUPTI_SUCCESS;
static int enabled[64];
static union fake_record queue[QUEUE_MAX];
static size_t queued;
static size_t dropped;
static atomic_int n_flushes, n_register, n_v1, n_v2, n_bad_handles;
typedef void(CUPTIAPI *request_v2)(uint8_t **, size_t *, size_t *, void *);
typedef void(CUPTIAPI *complete_v2)(uint8_t *, size_t, size_t, void *);
static request_v2 requested2;
static complete_v2 completed2;

int fake_cupti_handle_valid(CUpti_SubscriberHandle h); /* fake_cupti.c */

/* A _v2 call: counted, and refused for a handle that is not subscribed. */
static int scoped_call(CUpti_SubscriberHandle h)
{
    atomic_fetch_add(&n_v2, 1);
    if (fake_cupti_handle_valid(h))
        return 1;
    atomic_fetch_add(&n_bad_handles, 1);
    return 0;
}

static size_t record_size(CUpti_ActivityKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
        return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return sizeof(CUpti_ActivityMemset4);
    default:
        return sizeof(CUpti_Activity);
    }
}

static size_t aligned_size(CUpti_ActivityKind kind)
{
    return (record_size(kind) + 7) & ~(size_t)7;
}

/* What the records played next carry (fake_activity_on). */
static uint32_t play_stream;
static const char *play_name;

void fake_activity_on(uint32_t stream, const char *kernel_name)
{
    pthread_mutex_lock(&alock);
    play_stream = stream;
    play_name = kernel_name;
    pthread_mutex_unlock(&alock);
}

/* Queues r if its kind is enabled, as CUPTI records only enabled kinds. */
static void play(union fake_record *r)
{
    pthread_mutex_lock(&alock);
    switch (r->any.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        r->kernel.streamId = play_stream;
        if (!r->kernel.name)	/* fake_activity_kernel_named's own name first */
            r->kernel.name = play_name;
        r->kernel.gridX = r->kernel.gridY = r->kernel.gridZ = 1;
        r->kernel.blockX = 128, r->kernel.blockY = r->kernel.blockZ = 1;
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        r->memcpy.streamId = play_stream;
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        r->memset.streamId = play_stream;
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        r->peer.streamId = play_stream;
        break;
    default:
        break;
    }
    if ((unsigned)r->any.kind < 64 && enabled[r->any.kind]) {
        if (queued < QUEUE_MAX)
            queue[queued++] = *r;
        else
            dropped++;
    }
    pthread_mutex_unlock(&alock);
}

void fake_activity_kernel(uint32_t corr, uint64_t start, uint64_t end, uint32_t device)
{
    union fake_record r;
    memset(&r, 0, sizeof r);
    r.kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r.kernel.correlationId = corr;
    r.kernel.start = start;
    r.kernel.end = end;
    r.kernel.deviceId = device;
    play(&r);
}

void fake_activity_kernel_named(uint32_t corr, const char *name, uint64_t start, uint64_t end, uint32_t device)
{
    union fake_record r;
    memset(&r, 0, sizeof r);
    r.kernel.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    r.kernel.correlationId = corr;
    r.kernel.start = start;
    r.kernel.end = end;
    r.kernel.deviceId = device;
    r.kernel.name = name;
    play(&r);
}

void fake_activity_memcpy(uint32_t corr, int copy_kind, uint64_t bytes, uint64_t start, uint64_t end,
                          uint32_t device)
{
    union fake_record r;
    memset(&r, 0, sizeof r);
    r.memcpy.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.memcpy.copyKind = (uint8_t)copy_kind;
    r.memcpy.bytes = bytes;
    r.memcpy.correlationId = corr;
    r.memcpy.start = start;
    r.memcpy.end = end;
    r.memcpy.deviceId = device;
    play(&r);
}

void fake_activity_peer(uint32_t corr, uint64_t bytes, uint64_t start, uint64_t end, uint32_t device)
{
    union fake_record r;
    memset(&r, 0, sizeof r);
    r.peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
    r.peer.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
    r.peer.bytes = bytes;
    r.peer.correlationId = corr;
    r.peer.start = start;
    r.peer.end = end;
    r.peer.deviceId = device;
    play(&r);
}

void fake_activity_memset(uint32_t corr, uint64_t bytes, uint64_t start, uint64_t end, uint32_t device)
{
    union fake_record r;
    memset(&r, 0, sizeof r);
    r.memset.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.memset.bytes = bytes;
    r.memset.correlationId = corr;
    r.memset.start = start;
    r.memset.end = end;
    r.memset.deviceId = device;
    play(&r);
}

void fake_activity_drop(size_t n)
{
    pthread_mutex_lock(&alock);
    dropped += n;
    pthread_mutex_unlock(&alock);
}

void fake_activity_register_error(CUptiResult err)
{
    pthread_mutex_lock(&alock);
    register_err = err;
    pthread_mutex_unlock(&alock);
}

/* A delivery on the calling thread (CUPTI's worker thread, which hands completed buffers on its
 * own): the queued records go in one buffer to the completed callback, and the callback's walk
 * of the buffer pauses slow_ms after its first record.  Meanwhile the queue is empty, so a
 * cuptiActivityFlushAll on another thread returns at once, as CUPTI's does while its worker
 * holds a buffer. */
static atomic_int slow_ms, delivering;

int fake_activity_delivering(void)
{
    return atomic_load(&delivering);
}

int fake_activity_flushes(void)
{
    return atomic_load(&n_flushes);
}

int fake_activity_register_calls(void)
{
    return atomic_load(&n_register);
}

int fake_activity_v1_calls(void)
{
    return atomic_load(&n_v1);
}

int fake_activity_v2_calls(void)
{
    return atomic_load(&n_v2);
}

int fake_activity_bad_handles(void)
{
    return atomic_load(&n_bad_handles);
}

int fake_activity_enabled(CUpti_ActivityKind kind)
{
    pthread_mutex_lock(&alock);
    int on = (unsigned)kind < 64 && enabled[kind];
    pthread_mutex_unlock(&alock);
    return on;
}

size_t fake_activity_queued(void)
{
    pthread_mutex_lock(&alock);
    size_t n = queued;
    pthread_mutex_unlock(&alock);
    return n;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc req,
                                           CUpti_BuffersCallbackCompleteFunc done)
{
    atomic_fetch_add(&n_register, 1);
    atomic_fetch_add(&n_v1, 1);
    pthread_mutex_lock(&alock);
    CUptiResult r = register_err;
    if (r == CUPTI_SUCCESS) {
        requested = req;
        completed = done;
        requested2 = NULL;
        completed2 = NULL;
    }
    pthread_mutex_unlock(&alock);
    return r;
}

CUptiResult cuptiActivityRegisterCallbacks_v2(CUpti_SubscriberHandle sub, request_v2 req, complete_v2 done)
{
    atomic_fetch_add(&n_register, 1);
    if (!scoped_call(sub))
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&alock);
    CUptiResult r = register_err;
    if (r == CUPTI_SUCCESS) {
        requested2 = req;
        completed2 = done;
        requested = NULL;
        completed = NULL;
    }
    pthread_mutex_unlock(&alock);
    return r;
}

static CUptiResult set_kind(CUpti_ActivityKind kind, int on)
{
    if ((unsigned)kind >= 64)
        return CUPTI_ERROR_INVALID_KIND;
    pthread_mutex_lock(&alock);
    enabled[kind] = on;
    pthread_mutex_unlock(&alock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
    atomic_fetch_add(&n_v1, 1);
    return set_kind(kind, 1);
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
    atomic_fetch_add(&n_v1, 1);
    return set_kind(kind, 0);
}

CUptiResult cuptiActivityEnable_v2(CUpti_SubscriberHandle sub, CUpti_ActivityKind kind, void *config)
{
    (void)config;
    return scoped_call(sub) ? set_kind(kind, 1) : CUPTI_ERROR_INVALID_PARAMETER;
}

CUptiResult cuptiActivityDisable_v2(CUpti_SubscriberHandle sub, CUpti_ActivityKind kind, void *config)
{
    (void)config;
    return scoped_call(sub) ? set_kind(kind, 0) : CUPTI_ERROR_INVALID_PARAMETER;
}

/* Fills one buffer from the queue's head; returns the valid bytes, and how many records went. */
static size_t fill(uint8_t *buf, size_t size, size_t *taken)
{
    size_t off = 0, i = 0;
    while (i < queued && off + aligned_size(queue[i].any.kind) <= size) {
        memcpy(buf + off, &queue[i], record_size(queue[i].any.kind));
        off += aligned_size(queue[i].any.kind);
        i++;
    }
    memmove(queue, queue + i, (queued - i) * sizeof queue[0]);
    queued -= i;
    *taken = i;
    return off;
}

/* Hands the queue's head over in one buffer to the completed callback, on the calling thread,
 * pausing slow ms after its first record (fake_activity_deliver); 0 when nothing was pending or
 * no callbacks are registered.  Like CUPTI, the callbacks run outside the fake's own lock:
 * bufferCompleted may call back.  Without a buffer the records are dropped. */
static int hand_over(unsigned slow)
{
    pthread_mutex_lock(&alock);
    size_t pending = queued;
    CUpti_BuffersCallbackRequestFunc req = requested;
    CUpti_BuffersCallbackCompleteFunc done = completed;
    request_v2 req2 = requested2;
    complete_v2 done2 = completed2;
    pthread_mutex_unlock(&alock);
    if (!pending || !((req && done) || (req2 && done2)))
        return 0;
    uint8_t *buf = NULL;
    size_t size = 0, max = 0, taken = 0;
    if (req2)
        req2(&buf, &size, &max, NULL);
    else
        req(&buf, &size, &max);
    pthread_mutex_lock(&alock);
    size_t valid = buf ? fill(buf, size, &taken) : 0;
    if (!buf || !taken) {
        dropped += queued;
        queued = 0;
    }
    pthread_mutex_unlock(&alock);
    if (!buf)
        return 1;
    atomic_store(&slow_ms, (int)slow);
    if (done2)
        done2(buf, size, valid, NULL);
    else
        done(NULL, 0, buf, size, valid);
    atomic_store(&slow_ms, 0);
    atomic_store(&delivering, 0);
    return 1;
}

/* The library is being unloaded at exit, as CUPTI's teardown does: a flush
 * from then on is a tool's thread still calling a finalized CUPTI.  With
 * FAKE_CUPTI_EXIT_PAUSE_MS the teardown takes that long, so such a thread
 * is caught. */
static atomic_int finalized;
static atomic_int signal_in_flush;

void fake_activity_signal_in_flush(int sig)
{
    atomic_store(&signal_in_flush, sig);
}

int fake_cupti_finalized(void)
{
    return atomic_load(&finalized);
}

__attribute__((destructor)) static void fake_cupti_teardown(void)
{
    atomic_store(&finalized, 1);
    const char *ms = getenv("FAKE_CUPTI_EXIT_PAUSE_MS");
    if (ms)
        usleep((useconds_t)atoi(ms) * 1000u);
}

/* Flushes that hand nothing over (fake_activity_hold): CUPTI keeps a buffer back from a
 * cuptiActivityFlushAll(0) while one of its records is incomplete, that is while any thread's
 * work in it still runs, so records of work that finished long ago come late. */
static atomic_int held_flushes;

void fake_activity_hold(int flushes)
{
    atomic_store(&held_flushes, flushes);
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    if (atomic_load(&finalized)) {
        static const char msg[] = "fake libcupti: cuptiActivityFlushAll after CUPTI's teardown at exit\n";
        (void)!write(2, msg, sizeof msg - 1);
        abort();
    }
    atomic_fetch_add(&n_flushes, 1);
    int sig = atomic_exchange(&signal_in_flush, 0);
    if (sig)
        raise(sig); /* a sampler's signal landing inside the flush of an ordinary read */
    if (!(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)) {
        int held = atomic_load(&held_flushes);
        while (held > 0 && !atomic_compare_exchange_weak(&held_flushes, &held, held - 1))
            ;
        if (held != 0)
            return CUPTI_SUCCESS; /* > 0: one fewer to hold; < 0: held until fake_activity_hold(0) */
    }
    pthread_mutex_lock(&flush_lock);
    while (hand_over(0))
        ;
    pthread_mutex_unlock(&flush_lock);
    return CUPTI_SUCCESS;
}

void fake_activity_deliver(unsigned ms)
{
    hand_over(ms);
}

static CUptiResult next_record(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
    size_t off = 0;
    if (!buffer || !record)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (*record)
        off = (size_t)((uint8_t *)*record - buffer) + aligned_size((*record)->kind);
    if (off >= valid)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    int ms = off ? atomic_exchange(&slow_ms, 0) : 0;
    if (ms > 0) {	/* the first record was taken: a worker still busy with the buffer */
        atomic_store(&delivering, 1);
        struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
    }
    *record = (CUpti_Activity *)(buffer + off);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
    atomic_fetch_add(&n_v1, 1);
    return next_record(buffer, valid, record);
}

CUptiResult cuptiActivityGetNextRecord_v2(CUpti_SubscriberHandle sub, uint8_t *buffer, size_t valid,
                                          CUpti_Activity **record)
{
    return scoped_call(sub) ? next_record(buffer, valid, record) : CUPTI_ERROR_INVALID_PARAMETER;
}

static CUptiResult dropped_records(size_t *n)
{
    if (!n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&alock);
    *n = dropped;
    dropped = 0;
    pthread_mutex_unlock(&alock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext ctx, uint32_t stream, size_t *n)
{
    (void)ctx, (void)stream;
    atomic_fetch_add(&n_v1, 1);
    return dropped_records(n);
}

CUptiResult cuptiActivityGetNumDroppedRecords_v2(CUpti_SubscriberHandle sub, CUcontext ctx, uint32_t stream,
                                                 size_t *n)
{
    (void)ctx, (void)stream;
    return scoped_call(sub) ? dropped_records(n) : CUPTI_ERROR_INVALID_PARAMETER;
}
