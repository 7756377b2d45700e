# cujit as a package: installed into a temporary prefix, then used by three
# consumer projects (tests/consumers/), each running tests/consumers/app.cpp on
# the CPU (and on a GPU where there is one):
#   consumer_find_package    find_package(cujit) against the installed prefix
#   consumer_pkg_config      c++ $(pkg-config --cflags --libs cujit)
#   consumer_add_subdirectory  the source tree inside another project, as a shared
#                            library (BUILD_SHARED_LIBS=ON), only its public API exported
# and readme_example: README.md's C++ example is app.cpp's, word for word.
set(CUJIT_CONSUMERS ${CMAKE_CURRENT_SOURCE_DIR}/consumers)
set(CUJIT_PACKAGE_DIR ${CMAKE_CURRENT_BINARY_DIR}/package)

add_test(NAME readme_example COMMAND ${CMAKE_COMMAND} -DREADME=${PROJECT_SOURCE_DIR}/README.md
  -DSOURCE=${CUJIT_CONSUMERS}/app.cpp -P ${CUJIT_CONSUMERS}/readme_example.cmake)

if(NOT CUJIT_INSTALL)
  return()
endif()

# What the consumers' builds inherit from this one.
set(consumer_options -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
if(CMAKE_CXX_COMPILER_LAUNCHER)
  list(APPEND consumer_options -DCMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER})
endif()
include(ProcessorCount)
ProcessorCount(jobs)
if(jobs EQUAL 0)
  set(jobs 2)
endif()

if(TARGET cujit_man_pages)
  set(man ON)
else()
  set(man OFF)
endif()
add_test(NAME package_install COMMAND ${CMAKE_COMMAND} -DBUILD=${PROJECT_BINARY_DIR}
  -DPREFIX=${CUJIT_PACKAGE_DIR}/prefix -DMAN=${man} -P ${CUJIT_CONSUMERS}/install.cmake)
set_tests_properties(package_install PROPERTIES FIXTURES_SETUP cujit_package)

list(JOIN consumer_options "|" options)
add_test(NAME consumer_find_package COMMAND ${CMAKE_COMMAND} -DSOURCE=${CUJIT_CONSUMERS}/find_package
  -DBINARY=${CUJIT_PACKAGE_DIR}/find_package -DJOBS=${jobs}
  "-DOPTIONS=${options}|-DCMAKE_PREFIX_PATH=${CUJIT_PACKAGE_DIR}/prefix" -P ${CUJIT_CONSUMERS}/run.cmake)

add_test(NAME consumer_pkg_config COMMAND bash ${CUJIT_CONSUMERS}/pkg_config/build.sh
  ${CUJIT_PACKAGE_DIR}/prefix ${CUJIT_PACKAGE_DIR}/pkg_config ${CMAKE_CXX_COMPILER_LAUNCHER} ${CMAKE_CXX_COMPILER})
set_tests_properties(consumer_find_package consumer_pkg_config PROPERTIES FIXTURES_REQUIRED cujit_package)

# Compiles the library again (a shared one, no build type: the parent's choice), so it is the slow one.
set(subproject_options ${consumer_options} -DBUILD_SHARED_LIBS=ON -DCUJIT_SOURCE_DIR=${PROJECT_SOURCE_DIR})
if(CUDAToolkit_LIBRARY_ROOT)
  list(APPEND subproject_options -DCUDAToolkit_ROOT=${CUDAToolkit_LIBRARY_ROOT})
endif()
list(JOIN subproject_options "|" options)
add_test(NAME consumer_add_subdirectory COMMAND ${CMAKE_COMMAND} -DSOURCE=${CUJIT_CONSUMERS}/add_subdirectory
  -DBINARY=${CUJIT_PACKAGE_DIR}/add_subdirectory -DJOBS=${jobs} "-DOPTIONS=${options}"
  -P ${CUJIT_CONSUMERS}/run.cmake)
set_tests_properties(consumer_add_subdirectory PROPERTIES TIMEOUT 1800)
