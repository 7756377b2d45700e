# Installs the build into a fresh prefix and checks what a package user relies on.
# cmake -DBUILD=<build folder> -DPREFIX=<prefix> -DMAN=ON|OFF -P install.cmake
cmake_policy(VERSION 3.22)
file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${PREFIX} RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "cmake --install failed")
endif()
file(GLOB_RECURSE installed RELATIVE ${PREFIX} ${PREFIX}/*)
set(want bin/jitrun bin/jitcache include/cujit/elementwise.hpp include/cujit/reduction.hpp include/cujit/export.hpp
  include/cujit/npy.hpp
  cmake/cujit/cujitConfig.cmake cmake/cujit/cujitConfigVersion.cmake cmake/cujit/cujitTargets.cmake
  pkgconfig/cujit.pc)
if(MAN)
  list(APPEND want man1/jitrun.1 man1/jitcache.1)
endif()
foreach(file ${want})
  if(NOT installed MATCHES "(^|;)([^;]*/)?${file}(;|$)")
    message(FATAL_ERROR "not installed: ${file} (installed: ${installed})")
  endif()
endforeach()
if(NOT installed MATCHES "libcujit\\.(a|so)")
  message(FATAL_ERROR "libcujit not installed")
endif()
# No private header leaks into the installed include folder.
file(GLOB headers RELATIVE ${PREFIX}/include/cujit ${PREFIX}/include/cujit/*)
message(STATUS "installed headers: ${headers}")
# The installed tools run from the prefix, with their embedded templates.
unset(ENV{CUJIT_TEMPLATE_DIR})
execute_process(COMMAND ${PREFIX}/bin/jitrun --device cpu --print -i "x=arange(4)" "out = x * 2.5"
  OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(rc OR NOT out MATCHES "out = \\[0\\. +2\\.5 +5\\. +7\\.5\\]")
  message(FATAL_ERROR "installed jitrun: exit ${rc}, output '${out}'")
endif()
string(RANDOM LENGTH 8 tag)
set(ENV{CUJIT_CACHE_DIR} ${BUILD}/package-cache-${tag})
execute_process(COMMAND ${PREFIX}/bin/jitcache compile -i x=float32 "out = sin(x)*5"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
file(REMOVE_RECURSE ${BUILD}/package-cache-${tag})
if(rc OR NOT out MATCHES "compiled")
  message(FATAL_ERROR "installed jitcache compile: exit ${rc}, output '${out}${err}'")
endif()
