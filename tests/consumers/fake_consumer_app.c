/*
 * fake_consumer_app: consumer_app (consumer_app.cu) played into the fake CUPTI, for trying
 * scripts/consumers/run-gpu and the tools it runs (TAU, HPCToolkit, Caliper) on a machine
 * without a GPU.  Same regions, same callback counts (consumer_app.h); the GPU ran nothing, so
 * its --expect leaves out the gpu.* events.
 *
 * The tools initialize PAPI before main, so the component must already be pointed at the fakes
 * by the environment: CUPTI_CB_CUPTI_LIB and CUPTI_CB_CUDA_LIB set to the files this program
 * links (it checks, and says so, when they are not).
 *
 *   CUPTI_CB_CUPTI_LIB=tests/fakes/libcupti.so CUPTI_CB_CUDA_LIB=tests/fakes/libcuda.so \
 *     scripts/consumers/run-gpu --app tests/consumers/fake_consumer_app --papi PREFIX --tools DIR OUT
 */
#include "ctest_util.h"
#include "fake_play.h"

#include "consumer_app.h"

typedef void (*region_fn)(const char *);
static region_fn tau_start, tau_stop, cali_begin, cali_end;

static void regions_find(void)
{
    tau_start = (region_fn)dlsym(RTLD_DEFAULT, "Tau_start");
    tau_stop = (region_fn)dlsym(RTLD_DEFAULT, "Tau_stop");
    cali_begin = (region_fn)dlsym(RTLD_DEFAULT, "cali_begin_region");
    cali_end = (region_fn)dlsym(RTLD_DEFAULT, "cali_end_region");
    if (!tau_start || !tau_stop)
        tau_start = tau_stop = NULL;
    if (!cali_begin || !cali_end)
        cali_begin = cali_end = NULL;
}

static void region_begin(const char *name)
{
    if (tau_start)
        tau_start(name);
    if (cali_begin)
        cali_begin(name);
}

static void region_end(const char *name)
{
    play_sync();
    if (cali_end)
        cali_end(name);
    if (tau_stop)
        tau_stop(name);
}

static void play_graph_launches(int n)
{
    cuGraphLaunch_params gl;
    memset(&gl, 0, sizeof gl);
    for (int i = 0; i < n; i++) {
        struct fake_call rt;
        fake_call_init(&rt, FAKE_RT, RCB(cudaGraphLaunch_v10000), NULL, 0, FAKE_CTX0);
        fake_enter(&rt);
        fake_driver(DCB(cuGraphLaunch), &gl, CUDA_SUCCESS, FAKE_CTX0);
        fake_exit(&rt);
    }
}

static void *thread_main(void *arg)
{
    int t = (int)(long)arg;
    region_begin("ca_thread");
    play_launches((t + 1) * CA_T_LAUNCHES, FAKE_CTX0);
    region_end("ca_thread");
    return NULL;
}

static void print_expect(void)
{
    printf("ca_launch kernel.launches %d\n", CA_LAUNCHES);
    printf("ca_launch memcpy.bytes_htod 0\n");
    printf("ca_launch graph.launches 0\n");
    printf("ca_copy kernel.launches 0\n");
    printf("ca_copy memcpy.bytes_htod %ld\n", (long)CA_COPIES * CA_COPY_BYTES);
    printf("ca_copy graph.launches 0\n");
    printf("ca_graph kernel.launches 0\n");
    printf("ca_graph memcpy.bytes_htod 0\n");
    printf("ca_graph graph.launches %d\n", CA_GRAPH_LAUNCHES);
    printf("ca_thread kernel.launches");
    for (int t = 0; t < CA_THREADS; t++)
        printf(" %d", (t + 1) * CA_T_LAUNCHES);
    printf("\nca_thread memcpy.bytes_htod");
    for (int t = 0; t < CA_THREADS; t++)
        printf(" 0");
    printf("\nca_thread graph.launches");
    for (int t = 0; t < CA_THREADS; t++)
        printf(" 0");
    printf("\n");
}

/* Is the component pointed at the fakes this program links (CUPTI_CB_CUPTI_LIB, CUPTI_CB_CUDA_LIB)? */
static int pointed_here(void)
{
    const char *want[2] = {fake_file_of((void *)fake_call), fake_file_of((void *)fake_cuinit_calls)};
    const char *var[2] = {"CUPTI_CB_CUPTI_LIB", "CUPTI_CB_CUDA_LIB"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(var[i]);
        char *real = v ? realpath(v, NULL) : NULL;
        int same = real && want[i] && !strcmp(real, want[i]);
        free(real);
        if (!same) {
            fprintf(stderr, "fake_consumer_app: set %s=%s (the fake library this program links)\n", var[i],
                    want[i] ? want[i] : "?");
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--expect")) {
        print_expect();
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: fake_consumer_app [--expect]\n");
        return 2;
    }
    if (!pointed_here())
        return 2;
    regions_find();
    printf("fake_consumer_app: regions through%s%s%s\n", tau_start ? " TAU" : "", cali_begin ? " Caliper" : "",
           tau_start || cali_begin ? "" : " nothing (no tool in the process)");
    CUdeviceptr d = play_malloc(CA_COPY_BYTES, 0);

    region_begin("ca_launch");
    play_launches(CA_LAUNCHES, FAKE_CTX0);
    region_end("ca_launch");

    region_begin("ca_copy");
    for (int i = 0; i < CA_COPIES; i++)
        play_htod(CA_COPY_BYTES, 0);
    region_end("ca_copy");

    region_begin("ca_graph");
    play_graph_launches(CA_GRAPH_LAUNCHES);
    region_end("ca_graph");

    pthread_t th[CA_THREADS];
    for (long t = 0; t < CA_THREADS; t++)
        if (pthread_create(&th[t], NULL, thread_main, (void *)t) != 0)
            ct_fatal("pthread_create failed");
    for (int t = 0; t < CA_THREADS; t++)
        pthread_join(th[t], NULL);

    play_free(d);
    printf("fake_consumer_app: done\n");
    return 0;
}
