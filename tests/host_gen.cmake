# host_gen.cmake — registers the test of the host-CPU kernel generator (codegen/host.c)
# and its benchmark against OpenBLAS (label "bench"); included from tests/CMakeLists.txt.
add_executable(test_host_gen ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu.c)
target_include_directories(test_host_gen PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_host_gen PRIVATE codegen space)
add_test(NAME host_gen COMMAND test_host_gen)
# ... and its kernels compiled (cc and nm), and under clang: skipped where missing.
add_test(NAME host_gen_kernels COMMAND test_host_gen --kernels)
add_test(NAME host_gen_clang COMMAND test_host_gen --clang)
set_tests_properties(host_gen_kernels host_gen_clang PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)

# OpenBLAS is loaded at run time (dlopen) when present; it is not a build dependency.
add_executable(bench_host_kernel ${CMAKE_CURRENT_LIST_DIR}/bench/bench_host_kernel.c)
target_include_directories(bench_host_kernel PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_host_kernel PRIVATE codegen npuhost space GSL::gsl ${CMAKE_DL_LIBS})
# The bench: tune the bench shapes at 1 and 2 threads, then those kernels against OpenBLAS.
add_test(NAME bench_host_kernel
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/bench/host_bench.sh $<TARGET_FILE:npu-tune>
                 $<TARGET_FILE:bench_host_kernel> ${PROJECT_SOURCE_DIR}
                 ${CMAKE_CURRENT_BINARY_DIR}/host-bench)
set_tests_properties(bench_host_kernel PROPERTIES LABELS bench TIMEOUT 1800)
# ... and, in the default suite, its fixed fallback configs: still legal and generated.
add_test(NAME host_bench_fixed COMMAND bench_host_kernel --check-fixed)

# How well the host model ranks a random sample of measured configs (sampled afresh:
# an earlier build's journal would not resume).
add_executable(bench_host_model ${CMAKE_CURRENT_LIST_DIR}/bench/bench_host_model.c)
target_include_directories(bench_host_model PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_host_model PRIVATE npuhost space GSL::gsl)
add_test(NAME bench_host_model
         COMMAND sh -c "rm -rf \"$1\" && NPU_TUNE_OUT=\"$1\" \"$2\" --quiet \"$3\" && \"$4\" \"$1/host-sample.csv\""
                 bench_host_model ${CMAKE_CURRENT_BINARY_DIR}/host-sample $<TARGET_FILE:npu-tune>
                 ${CMAKE_CURRENT_LIST_DIR}/bench/host_sample.lua $<TARGET_FILE:bench_host_model>)
set_tests_properties(bench_host_model PROPERTIES LABELS bench TIMEOUT 1800)

# The micro-kernels' ceiling: each register tile in L1 and streaming B from L2.
add_executable(bench_host_ukr ${CMAKE_CURRENT_LIST_DIR}/bench/bench_host_ukr.c)
target_include_directories(bench_host_ukr PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_host_ukr PRIVATE codegen npuhost space GSL::gsl ${CMAKE_DL_LIBS})
add_test(NAME bench_host_ukr COMMAND bench_host_ukr)
set_tests_properties(bench_host_ukr PROPERTIES LABELS bench TIMEOUT 600)

# Configs of one shape side by side (not run by ctest: its arguments are the question).
add_executable(bench_host_configs ${CMAKE_CURRENT_LIST_DIR}/bench/bench_host_configs.c)
target_include_directories(bench_host_configs PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_host_configs PRIVATE codegen npuhost space GSL::gsl)
# ... and a quick run of it in the default suite: two configs (one on 2 threads) verified
# and timed in one final.
add_test(NAME host_configs COMMAND bench_host_configs 100x70x50 "WS 48 64 32 0 1 M 6x16"
                                   "OS 48 64 64 0 2 N 4x32")
set_tests_properties(host_configs PROPERTIES TIMEOUT 120
    PASS_REGULAR_EXPRESSION "WS 48 64 32 0 1 M 6x16 +[0-9.]+ +1.000  final: [0-9]+ samples side by side with 1 other[^\n]*\nOS 48 64 64 0 2 N 4x32 +[0-9.]+ +[0-9.]+  final: ")

# What the operands' memory costs a kernel: the cache's reach, one call against its flops on
# less memory (the bench), and a quick run of it in the default suite.
add_executable(bench_host_footprint ${CMAKE_CURRENT_LIST_DIR}/bench/bench_host_footprint.c)
target_include_directories(bench_host_footprint PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_host_footprint PRIVATE codegen measure space GSL::gsl ${CMAKE_DL_LIBS})
add_test(NAME bench_host_footprint COMMAND bench_host_footprint)
set_tests_properties(bench_host_footprint PROPERTIES LABELS bench TIMEOUT 600)
add_test(NAME host_footprint COMMAND bench_host_footprint 64x96x128 "WS 48 64 32 0 1 M 6x16"
                                     --rounds 1 --chase 1)
set_tests_properties(host_footprint PROPERTIES TIMEOUT 120
    PASS_REGULAR_EXPRESSION "1 MiB +[0-9.]+\n.*the call +[0-9.]+ +[0-9.]+  1.000\n4 calls of K = 32, each on its own slices of A, B and its own C +[0-9.]+ +[0-9.]+  [0-9.]+ \\([01] of 1\\)\n4 calls of K = 32 on the first slices")

# What 16-bit storage costs: one config's kernel in fp32, bf16 and fp16 side by side (the
# bench), and a quick run of it in the default suite.
add_executable(bench_host_dtypes ${CMAKE_CURRENT_LIST_DIR}/bench/bench_host_dtypes.c)
target_include_directories(bench_host_dtypes PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_host_dtypes PRIVATE codegen space GSL::gsl ${CMAKE_DL_LIBS})
add_test(NAME bench_host_dtypes COMMAND bench_host_dtypes
         512x768x768 "WS 144 64 768 0 1 M 8x48" 512x3072x768 "WS 240 64 768 0 1 M 8x48"
         512x768x3072 "WS 144 64 768 0 1 M 8x48" 512x768x768 "WS 192 64 768 0 2 N 8x48"
         512x3072x768 "WS 240 64 768 0 2 N 8x48" 512x768x3072 "WS 480 64 768 0 2 N 8x48")
set_tests_properties(bench_host_dtypes PROPERTIES LABELS bench TIMEOUT 600)
add_test(NAME host_dtypes COMMAND bench_host_dtypes --rounds 1 67x45x33 "OS 48 64 32 0 2 MN 6x16")
set_tests_properties(host_dtypes PROPERTIES TIMEOUT 120
    PASS_REGULAR_EXPRESSION "67x45x33 +OS 48 64 32 0 2 MN 6x16 +[0-9.]+ +[0-9.]+ +[0-9.]+ \\( ?[01] of 1\\) +[0-9.]+ +[0-9.]+ \\( ?[01] of 1\\)\n")

# The kernels' machine code against another revision's generator (tests/host_same_code.sh):
# registered when -DNPU_TUNE_SAME_CODE_REF=REV names the revision (label "slow").
add_executable(host_emit ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu_emit.c)
target_link_libraries(host_emit PRIVATE codegen space)
set(NPU_TUNE_SAME_CODE_REF "" CACHE STRING "git revision whose host kernels host_same_code compares")
if(NPU_TUNE_SAME_CODE_REF)
  add_test(NAME host_same_code
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/codegen/cpu_same_code.sh $<TARGET_FILE:host_emit>
                   ${NPU_TUNE_SAME_CODE_REF} ${PROJECT_SOURCE_DIR})
  set_tests_properties(host_same_code PROPERTIES LABELS slow TIMEOUT 3600)
endif()
