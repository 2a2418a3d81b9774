// inj_demo_shared: cupti_cb_demo linked with the shared CUDA runtime (libcudart.so) instead of
// the static one, for gpu_run_shared.  Same source, same counts (src/demo/cupti_cb_demo.h).
#include "cupti_cb_demo.cu"
