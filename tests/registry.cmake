# registry.cmake — registers the tests of the plug-in registries: a search
# strategy lives in its own file and one registry line only; included from
# tests/CMakeLists.txt.
add_test(NAME search_files COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/search_files.sh ${PROJECT_SOURCE_DIR})
