/* cupti_cb_multiple_subscribers.h: what CUPTI 13.2 added for several subscribers in one
 * process, declared here because cupti_cb builds against CUDA 13.0 headers
 * too, which lack it. Only the few fields and entry points cupti_cb uses;
 * the entry points are resolved with dlsym, so one build works with a
 * libcupti that has them and with one that has not.
 *
 *   CUPTI_API_VERSION 130200 (CUDA 13.2): CUpti_SubscriberParams gains
 *   allowMultipleSubscribers (and 7 bytes of padding); the Activity API gains
 *   subscriber-scoped "_v2" entry points that take the subscriber handle.
 *
 * CUPTI's rule: once several subscribers exist, a subscriber uses the
 * subscriber-scoped calls, never the process-wide ones they replace. */
#ifndef CUPTI_CB_MULTIPLE_SUBSCRIBERS_H
#define CUPTI_CB_MULTIPLE_SUBSCRIBERS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cupti.h>

/* The first CUPTI API version (cuptiGetVersion) that allows several
 * subscribers. */
#define CUPTI_CB_MULTIPLE_SUBSCRIBERS_VERSION 130200u

/* CUpti_SubscriberParams as of CUPTI 13.2. The first four fields are the
 * 13.0 structure (checked below), so CUPTI reads this through its own type;
 * structSize tells it the two fields that follow are there. */
struct cupti_cb_subscriber_params {
	size_t structSize;
	const char *subscriberName;
	char *oldSubscriberName;
	size_t oldSubscriberSize;
	uint8_t allowMultipleSubscribers;	/* 1: ask to share the process */
	uint8_t padding[7];
};

/* 13.0's CUpti_SubscriberParams_STRUCT_SIZE, and 13.2's (up to the end of
 * padding). The 13.0 size goes to a libcupti older than 13.2. */
#define CUPTI_CB_SUBSCRIBER_PARAMS_SIZE_V130 \
	(offsetof(struct cupti_cb_subscriber_params, oldSubscriberSize) + sizeof(size_t))
#define CUPTI_CB_SUBSCRIBER_PARAMS_SIZE_V132 \
	(offsetof(struct cupti_cb_subscriber_params, padding) + sizeof(((struct cupti_cb_subscriber_params *)0)->padding))

_Static_assert(offsetof(struct cupti_cb_subscriber_params, oldSubscriberSize) ==
		       offsetof(CUpti_SubscriberParams, oldSubscriberSize),
	       "the 13.0 fields of CUpti_SubscriberParams are ours");
_Static_assert(CUPTI_CB_SUBSCRIBER_PARAMS_SIZE_V132 == CUpti_SubscriberParams_STRUCT_SIZE + 8 ||
		       CUPTI_CB_SUBSCRIBER_PARAMS_SIZE_V132 == CUpti_SubscriberParams_STRUCT_SIZE,
	       "13.2 adds 8 bytes to CUpti_SubscriberParams (already there with 13.2+ headers)");

/* The subscriber-scoped Activity API (CUPTI 13.2). The buffer callbacks
 * gain a last argument (a structure cupti_cb does not read); the completed
 * one loses the context and stream arguments. */
typedef void(CUPTIAPI *cupti_cb_buf_request_v2)(uint8_t **buffer, size_t *size, size_t *max_records, void *info);
typedef void(CUPTIAPI *cupti_cb_buf_complete_v2)(uint8_t *buffer, size_t size, size_t valid, void *info);

struct cupti_cb_activity_v2_fns {
	CUptiResult (*register_callbacks)(CUpti_SubscriberHandle, cupti_cb_buf_request_v2, cupti_cb_buf_complete_v2);
	CUptiResult (*enable)(CUpti_SubscriberHandle, CUpti_ActivityKind, void *config);	/* config may be NULL */
	CUptiResult (*disable)(CUpti_SubscriberHandle, CUpti_ActivityKind, void *config);
	CUptiResult (*next_record)(CUpti_SubscriberHandle, uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*dropped)(CUpti_SubscriberHandle, CUcontext, uint32_t, size_t *);
};

/* "13.5" for 130500 (CUDA 13.x versions are xxyyzz); for the older scheme
 * (a small number: 24 for CUDA 12.6), "API N"; "?" for 0 (not known). */
static inline void cupti_cb_cupti_version_str(uint32_t v, char *buf, size_t len)
{
	if (v == 0)
		snprintf(buf, len, "?");
	else if (v >= 100000u)
		snprintf(buf, len, "%u.%u", v / 10000u, v / 100u % 100u);
	else
		snprintf(buf, len, "API %u", v);
}

#endif
