# format.cmake — registers the test of the kernel text format (codegen/format.c);
# included from tests/CMakeLists.txt. Example kernels live in tests/kernels/.
add_executable(test_format ${CMAKE_CURRENT_LIST_DIR}/codegen/format.c)
target_link_libraries(test_format PRIVATE codegen space)
target_include_directories(test_format PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(test_format PRIVATE
  FORMAT_KERNELS_DIR="${CMAKE_CURRENT_LIST_DIR}/kernels")
add_test(NAME format COMMAND test_format)
