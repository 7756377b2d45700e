# The cujit library and the targets built on it. Included by the top-level CMakeLists.txt.
#
#   cujit (alias cujit::cujit)  the library applications link: static by default, shared with
#                               BUILD_SHARED_LIBS=ON. Only the public API (include/cujit/, marked
#                               CUJIT_API) is visible outside a shared libcujit.
#   cujit_internal              for cujit's own tools, tests and benchmarks, which also use the
#                               private headers (src/, cache/) and {fmt}: always a static copy, so
#                               they reach symbols a shared libcujit hides.
# Both are made of the same objects (cujit_objects), compiled once.
include(GenerateExportHeader)

file(GLOB_RECURSE CUJIT_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.cpp)
add_library(cujit_objects OBJECT ${CUJIT_SOURCES})
set_target_properties(cujit_objects PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(cujit_objects PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR}/include ${CMAKE_CURRENT_BINARY_DIR}/include
  ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/templates)
target_include_directories(cujit_objects SYSTEM PRIVATE ${XXHASH_INCLUDE_DIR} ${CUDAToolkit_INCLUDE_DIRS}
  ${DLPACK_INCLUDE_DIR})
# {fmt} header-only and private: no public header includes it, and nothing is left to link.
target_link_libraries(cujit_objects PRIVATE fmt::fmt-header-only hwy::hwy)
target_compile_options(cujit_objects PRIVATE ${CUJIT_WARNINGS})
# CUDAToolkit_INCLUDE_DIRS is a list (CUDA 13 adds include/cccl): a ';' in a
# definition breaks the compile command. The first entry is the toolkit's
# include folder; compile.cpp adds its cccl/ subfolder itself.
list(GET CUDAToolkit_INCLUDE_DIRS 0 CUJIT_CUDA_INCLUDE_DIR)
target_compile_definitions(cujit_objects PRIVATE CUJIT_CUDA_INCLUDE_DIR="${CUJIT_CUDA_INCLUDE_DIR}")

# include/cujit/export.hpp (generated): CUJIT_API marks the public classes and functions.
# A static library's users define CUJIT_STATIC_DEFINE (the target and cujit.pc carry it),
# so linking libcujit.a into a shared library does not export cujit's API from it.
set_target_properties(cujit_objects PROPERTIES DEFINE_SYMBOL cujit_EXPORTS)
generate_export_header(cujit_objects BASE_NAME cujit EXPORT_MACRO_NAME CUJIT_API
  INCLUDE_GUARD_NAME CUJIT_EXPORT_HPP EXPORT_FILE_NAME ${CMAKE_CURRENT_BINARY_DIR}/include/cujit/export.hpp)
if(BUILD_SHARED_LIBS)
  target_compile_definitions(cujit_objects PRIVATE cujit_EXPORTS)
else()
  target_compile_definitions(cujit_objects PRIVATE CUJIT_STATIC_DEFINE)
endif()

# What every user of the library needs: C++17, the public headers (DLPack's for
# cujit/dlpack.hpp) and, for a static library, what libcujit's objects link:
# NVRTC, threads, dlopen, Highway (libhwy). cujit::nvrtc is defined by cujitConfig.cmake.
function(cujit_link_interface target)
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_include_directories(${target} PUBLIC
    $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${CMAKE_CURRENT_BINARY_DIR}/include>)
  target_include_directories(${target} SYSTEM PUBLIC $<BUILD_INTERFACE:${DLPACK_INCLUDE_DIR}>)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:${NVRTC_LIBRARY}> $<INSTALL_INTERFACE:cujit::nvrtc>
    Threads::Threads ${CMAKE_DL_LIBS} hwy::hwy)
endfunction()

add_library(cujit $<TARGET_OBJECTS:cujit_objects>)
add_library(cujit::cujit ALIAS cujit)
cujit_link_interface(cujit)
if(NOT BUILD_SHARED_LIBS)
  target_compile_definitions(cujit INTERFACE CUJIT_STATIC_DEFINE)
endif()
# 0.x: every minor release may change the ABI.
set_target_properties(cujit PROPERTIES VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  # Installed, a shared libcujit keeps its RUNPATH to NVRTC (a runfile toolkit is not in ld.so's path).
  INSTALL_RPATH_USE_LINK_PATH ON)

if(BUILD_SHARED_LIBS)
  add_library(cujit_static STATIC $<TARGET_OBJECTS:cujit_objects>)
  cujit_link_interface(cujit_static)
  set(CUJIT_INTERNAL_LIBRARY cujit_static)
else()
  set(CUJIT_INTERNAL_LIBRARY cujit)
endif()
add_library(cujit_internal INTERFACE)
target_link_libraries(cujit_internal INTERFACE ${CUJIT_INTERNAL_LIBRARY} fmt::fmt-header-only)
# templates/: src/scalar.hpp compiles the templates' cast as host C++ (src/cpu/ops_host.hpp).
target_include_directories(cujit_internal INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/src ${CMAKE_CURRENT_SOURCE_DIR}/templates)
# src/core/driver.hpp and src/gpu/launch.hpp include <cuda.h> (for its types).
target_include_directories(cujit_internal SYSTEM INTERFACE ${CUDAToolkit_INCLUDE_DIRS})
