/* fake_subscriber.h: CUPTI's callback subscription as the unit tests and
 * bench_hotpath fake it, without a GPU: one subscriber, the table of enabled
 * CBIDs (written by the component under its lock, read by the calling
 * threads, as CUPTI's own table is), and two faults CUPTI shows: another
 * tool holding the subscription (fake_other_tool: the subscribe is refused
 * with its name), and an enable that fails (fake_fail_enable_at: the n-th
 * enable from now). fake_subscriber_install puts them into a loaded
 * struct cupti_cb_api. Included once per program. */
#ifndef FAKE_SUBSCRIBER_H
#define FAKE_SUBSCRIBER_H

#include <stdatomic.h>
#include <stdio.h>
#include <cupti.h>

#include "cupti_cb_loader.h"

static atomic_uchar enabled[2][CUPTI_DRIVER_TRACE_CBID_SIZE + CUPTI_RUNTIME_TRACE_CBID_SIZE];
static int fake_subscribed, fake_other_tool, fake_fail_enable_at;

static CUptiResult fake_subscribe_v2(CUpti_SubscriberHandle *s, CUpti_CallbackFunc fn, void *ud,
				     CUpti_SubscriberParams *p)
{
	(void)fn, (void)ud;
	if (fake_other_tool) {
		snprintf(p->oldSubscriberName, p->oldSubscriberSize, "CUPTI for probe");
		return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	}
	fake_subscribed++;
	*s = (CUpti_SubscriberHandle)0x5;
	return CUPTI_SUCCESS;
}

static CUptiResult fake_unsubscribe(CUpti_SubscriberHandle s)
{
	(void)s;
	fake_subscribed--;
	return CUPTI_SUCCESS;
}

static CUptiResult fake_enable(uint32_t on, CUpti_SubscriberHandle s, CUpti_CallbackDomain d, CUpti_CallbackId c)
{
	(void)s;
	if (on && fake_fail_enable_at > 0 && --fake_fail_enable_at == 0)
		return CUPTI_ERROR_INVALID_PARAMETER;
	atomic_store(&enabled[d == CUPTI_CB_DOMAIN_DRIVER_API][c], (unsigned char)on);
	return CUPTI_SUCCESS;
}

static void fake_subscriber_install(struct cupti_cb_api *api)
{
	api->cuptiSubscribe_v2 = fake_subscribe_v2;
	api->cuptiUnsubscribe = fake_unsubscribe;
	api->cuptiEnableCallback = fake_enable;
}

#endif
