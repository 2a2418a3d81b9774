/*
 * cupti_cb_inject_devices.h: the CUDA devices the process will see, from NVML or /proc and
 * CUDA_VISIBLE_DEVICES, without calling the CUDA driver (cupti_cb_inject_devices.c says why).
 */
#ifndef CUPTI_CB_INJECT_DEVICES_H
#define CUPTI_CB_INJECT_DEVICES_H

/* The count, or -1 when unknown. */
int cupti_cb_inj_device_count(void);

#endif /* CUPTI_CB_INJECT_DEVICES_H */
