// A dump file as NCCL 2.28's Inspector plugin writes it (ext-profiler/inspector/inspector.cc,
// inspectorCommInfoDump: one compact object per line, "\n" after each, doubles with %lf and a
// NaN as "nan"): rank 1 of a 2-rank communicator, three 1 MiB AllReduces and two 4 KiB
// AllGathers (the first timed at 0 us, so its bandwidths are "nan"), then a line the plugin is
// still writing (no newline yet).
#ifndef GPUHARNESS_CORE_TESTDATA_NCCL_INSPECTOR_SAMPLE_H_
#define GPUHARNESS_CORE_TESTDATA_NCCL_INSPECTOR_SAMPLE_H_

namespace gh::testdata {

inline constexpr char kInspectorRank1Dump[] =
    R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1764658021004517,"hostname":"h200-node","pid":48211},"coll_perf":{"coll":"AllReduce","coll_sn":0,"coll_msg_size_bytes":1048576,"coll_exec_time_us":41,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":25.575024,"coll_busbw_gbs":25.575024}})""\n"
    R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1764658021004602,"hostname":"h200-node","pid":48211},"coll_perf":{"coll":"AllReduce","coll_sn":1,"coll_msg_size_bytes":1048576,"coll_exec_time_us":37,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":28.339892,"coll_busbw_gbs":28.339892}})""\n"
    R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1764658021004688,"hostname":"h200-node","pid":48211},"coll_perf":{"coll":"AllReduce","coll_sn":2,"coll_msg_size_bytes":1048576,"coll_exec_time_us":45,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":23.301689,"coll_busbw_gbs":23.301689}})""\n"
    R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1764658021005190,"hostname":"h200-node","pid":48211},"coll_perf":{"coll":"AllGather","coll_sn":0,"coll_msg_size_bytes":4096,"coll_exec_time_us":0,"coll_timing_source":"collective_cpu","coll_algobw_gbs":"nan","coll_busbw_gbs":"nan"}})""\n"
    R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1764658021005271,"hostname":"h200-node","pid":48211},"coll_perf":{"coll":"AllGather","coll_sn":1,"coll_msg_size_bytes":4096,"coll_exec_time_us":12,"coll_timing_source":"kernel_gpu","coll_algobw_gbs":0.682667,"coll_busbw_gbs":0.341333}})""\n"
    R"({"header":{"id":"0x5a3c9e1f2b7d40","rank":1,"n_ranks":2,"nnodes":1},"metadata":{"inspector_output_format_version":"v4.0","git_rev":"","rec_mechanism":"nccl_profiler_interface","dump_timestamp_us":1764658021005)";

}  // namespace gh::testdata

#endif  // GPUHARNESS_CORE_TESTDATA_NCCL_INSPECTOR_SAMPLE_H_
