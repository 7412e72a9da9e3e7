# tests.cmake — npu_test(), the one way a test is registered, and the rules it holds
# every test to: its name, its labels, where its program lives (docs/hacking.md, Tests).
#
# Name: <area>.<what>. The area is the library or interface under test, one of
# NPU_TEST_AREAS; <what> is lower-case words joined by '_' that contain no other area's
# name, so that `ctest -R <area>` selects that area and nothing else. The test's program
# is tests/<area>/<what>.c or .sh (a benchmark's: tests/bench/bench_*.c, the name it is
# run by); another run of the same program is <area>.<what>_<variant>.
#
# Labels: at least one, each one of NPU_TEST_LABELS:
#   unit   a C program that tests one library through its API, and needs nothing else
#   cli    drives the npu-tune binary
#   host   compiles C with the host's compiler and runs it on this CPU (needs cc);
#          checks results, never timings
#   slow   takes more than about 30 s on its own (ctest -j starts it first)
#   long   too long for the default run (ctest -LE 'bench|long': under 5 minutes on
#          2 cores); CI's sanitizer step runs it
#   bench  a benchmark: measures and prints figures; left out of the default run
#          (ctest -LE bench)
#   fuzz   a libFuzzer harness, registered only in the fuzz build (NPU_TUNE_FUZZ)
set(NPU_TEST_AREAS base space codegen lua measure sim host results tuner cli bench fuzz build)
set(NPU_TEST_LABELS unit cli host slow long bench fuzz)

# npu_test_program(TARGET SOURCES file... [LIBS lib...] [DEFINES def...]
#                  [INCLUDES dir...] [DEPENDS target...])
# builds the executable TARGET of a test or benchmark from SOURCES (paths relative to
# the calling CMakeLists.txt), with tests/ on its include path (check.h, fixtures.h).
function(npu_test_program target)
  cmake_parse_arguments(PARSE_ARGV 1 P "" "" "SOURCES;LIBS;DEFINES;INCLUDES;DEPENDS")
  if(P_UNPARSED_ARGUMENTS OR NOT P_SOURCES)
    message(FATAL_ERROR "npu_test_program(${target}): SOURCES are required; "
                        "unknown arguments: ${P_UNPARSED_ARGUMENTS}")
  endif()
  add_executable(${target} ${P_SOURCES})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests ${P_INCLUDES})
  target_link_libraries(${target} PRIVATE ${P_LIBS})
  if(P_DEFINES)
    target_compile_definitions(${target} PRIVATE ${P_DEFINES})
  endif()
  if(P_DEPENDS)
    add_dependencies(${target} ${P_DEPENDS})
  endif()
endfunction()

# npu_test(NAME <area>.<what> [SOURCES file...] [PROGRAM target] [LIBS lib...]
#          [COMMAND cmd arg...] [ARGS arg...] [LABELS label...] [TIMEOUT s] [SKIPPABLE]
#          [DEFINES def...] [INCLUDES dir...] [DEPENDS target...])
# registers the test NAME. SOURCES: C files built into PROGRAM (default
# test_<area>_<what>; LIBS, DEFINES, INCLUDES, DEPENDS as in npu_test_program), or one
# shell script, run by bash; either runs with ARGS. COMMAND runs instead (another test's
# program, or a command around this one's), also with ARGS. SKIPPABLE: exit status 77
# means skipped (a tool the test needs is missing), shown as "Not Run", never as passed.
function(npu_test)
  cmake_parse_arguments(PARSE_ARGV 0 T "SKIPPABLE" "NAME;PROGRAM;TIMEOUT"
                        "SOURCES;LIBS;COMMAND;ARGS;LABELS;DEFINES;INCLUDES;DEPENDS")
  set(name "${T_NAME}")
  if(T_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "npu_test(${name}): unknown arguments: ${T_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT name MATCHES "^([a-z]+)\\.([a-z0-9_]+)$")
    message(FATAL_ERROR "npu_test: the name '${name}' is not <area>.<what> "
                        "(lower case, digits and '_'; cmake/tests.cmake)")
  endif()
  set(area ${CMAKE_MATCH_1})
  set(what ${CMAKE_MATCH_2})
  if(NOT area IN_LIST NPU_TEST_AREAS)
    list(JOIN NPU_TEST_AREAS ", " areas)
    message(FATAL_ERROR "npu_test(${name}): no area '${area}'; the areas: ${areas}")
  endif()
  foreach(other IN LISTS NPU_TEST_AREAS)
    string(FIND "${what}" "${other}" at)
    if(NOT other STREQUAL area AND at GREATER -1)
      message(FATAL_ERROR "npu_test(${name}): '${what}' names the area '${other}', so "
                          "`ctest -R ${other}` would select this test of ${area}")
    endif()
  endforeach()
  list(JOIN NPU_TEST_LABELS ", " labels)
  if(NOT T_LABELS)
    message(FATAL_ERROR "npu_test(${name}): no LABELS; one or more of ${labels}")
  endif()
  foreach(label IN LISTS T_LABELS)
    if(NOT label IN_LIST NPU_TEST_LABELS)
      message(FATAL_ERROR "npu_test(${name}): no label '${label}'; the labels: ${labels}")
    endif()
  endforeach()

  set(command ${T_COMMAND})
  if(T_SOURCES)
    list(GET T_SOURCES 0 first)
    get_filename_component(first ${first} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    set(home ${PROJECT_SOURCE_DIR}/tests/${area})
    cmake_path(IS_PREFIX home "${first}" NORMALIZE in)
    if(NOT in)
      message(FATAL_ERROR "npu_test(${name}): its program ${first} is not in tests/${area}/")
    endif()
    if(first MATCHES "\\.sh$")
      list(LENGTH T_SOURCES n)
      if(NOT n EQUAL 1 OR T_PROGRAM OR T_LIBS OR T_DEFINES OR T_INCLUDES)
        message(FATAL_ERROR "npu_test(${name}): a shell test is one script, built from nothing")
      endif()
      set(default bash ${first})
    else()
      set(program ${T_PROGRAM})
      if(NOT program)
        set(program test_${area}_${what})
      endif()
      npu_test_program(${program} SOURCES ${T_SOURCES} LIBS ${T_LIBS} DEFINES ${T_DEFINES}
                       INCLUDES ${T_INCLUDES} DEPENDS ${T_DEPENDS})
      set(default ${program})
    endif()
    if(NOT command)
      set(command ${default})
    endif()
  elseif(NOT command)
    message(FATAL_ERROR "npu_test(${name}): neither SOURCES nor COMMAND")
  endif()

  add_test(NAME ${name} COMMAND ${command} ${T_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS "${T_LABELS}")
  if(T_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
  if(T_SKIPPABLE)
    set_tests_properties(${name} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  if("slow" IN_LIST T_LABELS) # started first by ctest -j where no run has timed them yet
    set_tests_properties(${name} PROPERTIES COST 100)
  endif()
endfunction()
