# search.cmake — the search strategies' tests and their benchmark (label bench).
add_executable(test_search ${CMAKE_CURRENT_LIST_DIR}/tuner/search.c)
target_include_directories(test_search PRIVATE ${CMAKE_CURRENT_LIST_DIR}
                           ${PROJECT_SOURCE_DIR}/tuner) # white-box: search_internal.h
target_link_libraries(test_search PRIVATE tuner)
add_test(NAME search COMMAND test_search)

add_executable(bench_search ${CMAKE_CURRENT_LIST_DIR}/bench/bench_search.c)
target_include_directories(bench_search PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(bench_search PRIVATE tuner OpenMP::OpenMP_C)
add_test(NAME bench_search COMMAND bench_search)
set_tests_properties(bench_search PROPERTIES LABELS bench TIMEOUT 900)
