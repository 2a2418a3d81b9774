/*
 * consumer_app.h: what consumer_app (consumer_app.cu) does, in numbers, region by region.  The
 * program prints the expected values from here (consumer_app --expect) and scripts/consumers/
 * run-gpu compares what TAU, HPCToolkit and Caliper report with them: one source of truth.
 *
 * All work is on device 0, on the legacy default stream, and every region ends with a
 * cudaDeviceSynchronize and a pause of SETTLE_MS (CUPTI hands over the activity records of
 * finished work shortly after the GPU ran it: cupti_cb-activity(7), GPU ACTIVITY, Reading), so that the
 * gpu.* values read at a region's end are exact too.
 *
 *   ca_launch   (main thread)  LAUNCHES launches of a kernel <<<GRID, BLOCK>>>
 *   ca_copy     (main thread)  COPIES cudaMemcpy host to device of COPY_BYTES each
 *   ca_graph    (main thread)  a graph of GRAPH_NODES kernel nodes, launched GRAPH_LAUNCHES times
 *   ca_thread   (THREADS threads, one region each)  thread t (0-based) makes (t + 1) * T_LAUNCHES
 *               launches
 * Outside the regions: 1 cudaMalloc, 1 cudaSetDevice per thread, 1 cudaFree; no launch, no copy.
 */
#ifndef CONSUMER_APP_H
#define CONSUMER_APP_H

#define CA_GRID 2
#define CA_BLOCK 64
#define CA_LAUNCHES 2000
#define CA_COPIES 100
#define CA_COPY_BYTES 65536
#define CA_GRAPH_NODES 3
#define CA_GRAPH_LAUNCHES 4
#define CA_THREADS 4
#define CA_T_LAUNCHES 100
#define CA_SETTLE_MS 50

#endif /* CONSUMER_APP_H */
