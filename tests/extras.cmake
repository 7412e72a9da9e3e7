# extras.cmake — registers the tests of the "command" measurement backend (with
# the stand-in board tests/board.sh) and of `npu-tune plot`; included from tests/CMakeLists.txt.
add_executable(test_command ${CMAKE_CURRENT_LIST_DIR}/measure/command.c)
target_include_directories(test_command PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_command PRIVATE measure npusim codegen space GSL::gsl OpenMP::OpenMP_C m)
target_compile_definitions(test_command PRIVATE
  BOARD_SH="${CMAKE_CURRENT_LIST_DIR}/board.sh"
  NPU_TUNE_BIN_PATH="$<TARGET_FILE:npu-tune>")
add_dependencies(test_command npu-tune)
add_test(NAME command COMMAND test_command)

add_test(NAME plot COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/plot.sh $<TARGET_FILE:npu-tune>
                           ${PROJECT_SOURCE_DIR})
add_test(NAME plot_render COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli/plot.sh $<TARGET_FILE:npu-tune>
                                  ${PROJECT_SOURCE_DIR} render)
set_tests_properties(plot_render PROPERTIES SKIP_RETURN_CODE 77) # no gnuplot
