# cpu.cmake — registers the tests of CPU ("host") targets: the space library on CPU
# targets (test_cpu) and the script layer's host target, micro-tiles and kind checks
# (test_script_cpu); included from tests/CMakeLists.txt.
add_executable(test_cpu ${CMAKE_CURRENT_LIST_DIR}/space/cpu.c)
target_include_directories(test_cpu PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_cpu PRIVATE space m)
add_test(NAME cpu COMMAND test_cpu)

add_executable(test_script_cpu ${CMAKE_CURRENT_LIST_DIR}/lua/cpu.c)
target_include_directories(test_script_cpu PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_script_cpu PRIVATE lua_script space)
add_test(NAME script_cpu COMMAND test_script_cpu)
