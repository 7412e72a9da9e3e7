# CMakeLists.txt — builds the GEMM library npu-tune lib wrote (generated, do not edit):
# libnpu_tune_gemm.a and .so; `cmake --install` adds its header and npu_tune_gemm.pc.
cmake_minimum_required(VERSION 3.16)
project(npu_tune_gemm VERSION 1.0.0 LANGUAGES C)
include(GNUInstallDirs)
find_package(OpenMP REQUIRED COMPONENTS C)

# The kernels were tuned for the machine that ran npu-tune: compile for it.
option(NPU_TUNE_GEMM_NATIVE "compile for this machine's CPU (-march=native)" ON)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE Release)
endif()

# One compilation (position-independent) for both libraries.
add_library(npu_tune_gemm_objects OBJECT npu_tune_gemm.c)
set_target_properties(npu_tune_gemm_objects PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON
                      POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
target_compile_options(npu_tune_gemm_objects PRIVATE -O3
                       $<$<BOOL:${NPU_TUNE_GEMM_NATIVE}>:-march=native>)
target_link_libraries(npu_tune_gemm_objects PRIVATE OpenMP::OpenMP_C)

add_library(npu_tune_gemm SHARED $<TARGET_OBJECTS:npu_tune_gemm_objects>)
add_library(npu_tune_gemm_static STATIC $<TARGET_OBJECTS:npu_tune_gemm_objects>)
set_target_properties(npu_tune_gemm PROPERTIES VERSION ${PROJECT_VERSION} SOVERSION 1
                      PUBLIC_HEADER npu_tune_gemm.h)
set_target_properties(npu_tune_gemm_static PROPERTIES OUTPUT_NAME npu_tune_gemm)
foreach(lib npu_tune_gemm npu_tune_gemm_static)
  target_link_libraries(${lib} PUBLIC OpenMP::OpenMP_C)
  target_include_directories(${lib} INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>
                             $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

configure_file(npu_tune_gemm.pc.in npu_tune_gemm.pc @ONLY)
install(TARGETS npu_tune_gemm npu_tune_gemm_static
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/npu_tune_gemm.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
