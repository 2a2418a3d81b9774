# cupti_cb_files.mk: the component's C sources, the one list that every build
# of them derives from: PAPI's (Rules.cupti_cb), and the project's unit tests
# and programs that compile the component without PAPI.
#
# The PAPI adapter cupti_cb.c comes first; every other file is the component
# without PAPI. A new source file of the component is one more word here.
# Nothing here is specific to PAPI or to any one build: the file is read by
# GNU make from PAPI's src/ and by Automake.

CUPTI_CB_SRCS = cupti_cb.c \
	cupti_cb_core.c \
	cupti_cb_events.c \
	cupti_cb_suggest.c \
	cupti_cb_sources.c \
	cupti_cb_services.c \
	cupti_cb_driver_ops.c \
	cupti_cb_loader.c \
	cupti_cb_clock.c \
	cupti_cb_tap.c \
	cupti_cb_thread_counters.c \
	cupti_cb_signal_context.c \
	cupti_cb_overflow.c \
	cupti_cb_profiler_api.c \
	cupti_cb_profiler_base.c \
	cupti_cb_profiler_front.c \
	cupti_cb_profiler_catalog.c \
	cupti_cb_profiler_config.c \
	cupti_cb_profiler_events.c \
	cupti_cb_profiler_permission.c \
	cupti_cb_profiler_totals.c \
	cupti_cb_publish.c \
	cupti_cb_callback_source.c \
	cupti_cb_callback_state.c \
	cupti_cb_callback_catalog.c \
	cupti_cb_callback_derived.c \
	cupti_cb_callback_allocations.c \
	cupti_cb_callback_count.c \
	cupti_cb_callback_windows.c \
	cupti_cb_metric_source.c \
	cupti_cb_metric_range.c \
	cupti_cb_metric_session.c \
	cupti_cb_metric_group_table.c \
	cupti_cb_activity_source.c \
	cupti_cb_activity_buffers.c \
	cupti_cb_activity_busy.c \
	cupti_cb_activity_flusher.c \
	cupti_cb_sampling_source.c \
	cupti_cb_sampling_history.c \
	cupti_cb_sampling_session.c
