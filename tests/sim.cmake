# sim.cmake — registers the tests of the cycle-level NPU simulator (measure/sim/);
# included from tests/CMakeLists.txt. sim_speed times the timing mode (label bench).
find_package(Threads REQUIRED)
add_executable(test_sim ${CMAKE_CURRENT_LIST_DIR}/sim/kernels.c)
target_include_directories(test_sim PRIVATE ${CMAKE_CURRENT_LIST_DIR})
target_link_libraries(test_sim PRIVATE npusim codegen space GSL::gsl Threads::Threads m)
add_test(NAME sim COMMAND test_sim)
add_test(NAME sim_speed COMMAND test_sim --bench)
set_tests_properties(sim_speed PROPERTIES LABELS bench)
