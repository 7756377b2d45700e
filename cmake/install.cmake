# Install rules: the library, its headers, the CMake package (cujitConfig.cmake,
# cujitConfigVersion.cmake, the cujit::cujit target) and cujit.pc. The tools and
# their man pages install from tools/CMakeLists.txt.
#
#   cmake --install build --prefix /opt/cujit
#   find_package(cujit 0.1 REQUIRED)  target_link_libraries(app PRIVATE cujit::cujit)
#   c++ app.cpp $(pkg-config --cflags --libs cujit)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CUJIT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/cujit)
install(TARGETS cujit EXPORT cujitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}/include/cujit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/include/cujit/export.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cujit)
install(EXPORT cujitTargets NAMESPACE cujit:: DESTINATION ${CUJIT_CMAKE_DIR})

# Where this build found NVRTC and DLPack: the first place the package looks.
get_filename_component(CUJIT_NVRTC_DIR ${NVRTC_LIBRARY} DIRECTORY)
if(BUILD_SHARED_LIBS)
  set(CUJIT_SHARED ON)
else()
  set(CUJIT_SHARED OFF)
endif()
configure_package_config_file(cmake/cujitConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/cujitConfig.cmake
  INSTALL_DESTINATION ${CUJIT_CMAKE_DIR})
# 0.x: a minor release may break the API, so 0.1 is satisfied by 0.1.y only.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/cujitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cujitConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/cujitConfigVersion.cmake
  DESTINATION ${CUJIT_CMAKE_DIR})

# cujit.pc. The prefix is found from the .pc file's own folder, so the package
# works wherever `cmake --install --prefix` puts it. A static libcujit has no
# private dependencies: its users link NVRTC, Highway, threads and libdl themselves, so
# they go on Libs (with a RUNPATH to NVRTC: a runfile toolkit is not in ld.so's path).
file(RELATIVE_PATH CUJIT_PC_PREFIX /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
string(REGEX REPLACE "/$" "" CUJIT_PC_PREFIX "${CUJIT_PC_PREFIX}")
set(CUJIT_PC_DEPS "-L${CUJIT_NVRTC_DIR} -Wl,-rpath,${CUJIT_NVRTC_DIR} -lnvrtc")
# Highway from a folder the linker does not search (hwy_DIR, CMAKE_PREFIX_PATH) needs its -L too.
get_target_property(CUJIT_HWY_LIB hwy::hwy LOCATION)
get_filename_component(CUJIT_HWY_DIR "${CUJIT_HWY_LIB}" DIRECTORY)
if(CUJIT_HWY_DIR AND NOT CUJIT_HWY_DIR IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
  string(APPEND CUJIT_PC_DEPS " -L${CUJIT_HWY_DIR} -Wl,-rpath,${CUJIT_HWY_DIR}")
endif()
string(APPEND CUJIT_PC_DEPS " -lhwy -pthread")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND CUJIT_PC_DEPS " -l${lib}")
endforeach()
if(BUILD_SHARED_LIBS)
  set(CUJIT_PC_LIBS "")
  set(CUJIT_PC_LIBS_PRIVATE "${CUJIT_PC_DEPS}")
  set(CUJIT_PC_CFLAGS "")
else()
  set(CUJIT_PC_LIBS " ${CUJIT_PC_DEPS}")
  set(CUJIT_PC_LIBS_PRIVATE "")
  set(CUJIT_PC_CFLAGS " -DCUJIT_STATIC_DEFINE")
endif()
if(NOT DLPACK_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  string(APPEND CUJIT_PC_CFLAGS " -I${DLPACK_INCLUDE_DIR}")
endif()
configure_file(cmake/cujit.pc.in ${CMAKE_CURRENT_BINARY_DIR}/cujit.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/cujit.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
