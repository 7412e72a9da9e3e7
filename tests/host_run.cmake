# host_run.cmake — registers the test of the host CPU harness (measure/host.c,
# measure/roofline.c); included from tests/CMakeLists.txt.
add_executable(test_host_run ${CMAKE_CURRENT_LIST_DIR}/test_host_run.c)
target_include_directories(test_host_run PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_host_run PRIVATE measure codegen space GSL::gsl OpenMP::OpenMP_C m)
add_test(NAME host_run COMMAND test_host_run)
add_test(NAME host_run_crowded COMMAND test_host_run --crowded) # skipped without schedstat
set_tests_properties(host_run PROPERTIES TIMEOUT 120)
set_tests_properties(host_run_crowded PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
