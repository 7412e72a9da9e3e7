# host_run.cmake — registers the tests of the host CPU harness (measure/host/run.c,
# measure/host/roofline.c); included from tests/CMakeLists.txt.
add_executable(test_host_run ${CMAKE_CURRENT_LIST_DIR}/host/run.c)
target_include_directories(test_host_run PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_host_run PRIVATE npuhost codegen space GSL::gsl OpenMP::OpenMP_C m)
add_test(NAME host_run COMMAND test_host_run)
add_test(NAME host_run_crowded COMMAND test_host_run --crowded) # skipped without schedstat
set_tests_properties(host_run PROPERTIES TIMEOUT 120)
set_tests_properties(host_run_crowded PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)

# The timing runner (measure/host/runner.c), which the harness compiles at run time, built
# here with warnings as errors, and its protocol checked on hand-written kernels.
add_executable(nt_runner ${PROJECT_SOURCE_DIR}/measure/host/runner.c)
target_compile_options(nt_runner PRIVATE -Wall -Wextra -Werror)
target_link_libraries(nt_runner PRIVATE ${CMAKE_DL_LIBS} m)
add_library(runner_kernels MODULE ${CMAKE_CURRENT_LIST_DIR}/host/runner_kernels.c)
add_executable(test_host_runner ${CMAKE_CURRENT_LIST_DIR}/host/runner.c)
target_include_directories(test_host_runner PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME host_runner COMMAND test_host_runner $<TARGET_FILE:nt_runner>
                                  $<TARGET_FILE:runner_kernels>)
