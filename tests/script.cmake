# script.cmake — registers the tests of the Lua script module (lua/);
# included from tests/CMakeLists.txt. Fixtures live in tests/scripts/.
add_executable(test_script ${CMAKE_CURRENT_LIST_DIR}/lua/script.c)
target_link_libraries(test_script PRIVATE lua_script space)
target_include_directories(test_script PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(test_script PRIVATE
  NPU_TUNE_SCRIPTS_DIR="${CMAKE_CURRENT_LIST_DIR}/scripts")
add_test(NAME script COMMAND test_script)

# Hostile scripts: late declarations, time and memory limits, integer edges, --safe.
add_executable(test_script_limits ${CMAKE_CURRENT_LIST_DIR}/lua/limits.c)
target_link_libraries(test_script_limits PRIVATE lua_script space)
target_include_directories(test_script_limits PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME script_limits COMMAND test_script_limits)

# The DSL against the engine's own lists of searches and backends.
add_executable(test_script_names ${CMAKE_CURRENT_LIST_DIR}/lua/names.c)
target_link_libraries(test_script_names PRIVATE tuner)
target_include_directories(test_script_names PRIVATE ${CMAKE_CURRENT_LIST_DIR})
add_test(NAME script_names COMMAND test_script_names)
