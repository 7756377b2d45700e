# The public headers compile cleanly (warnings as errors) with each C++
# compiler at hand, as an application would include them: g++ and clang++
# where installed. Syntax only: nothing is linked.
set(_api_flags -std=c++17 -fsyntax-only -Wall -Wextra -Wpedantic -Werror
    -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_BINARY_DIR}/include  # the generated cujit/export.hpp
    ${CMAKE_CURRENT_SOURCE_DIR}/api/public_headers.cpp)
foreach(_cxx g++ clang++)
  find_program(CUJIT_API_${_cxx} NAMES ${_cxx})
  if(CUJIT_API_${_cxx})
    add_test(NAME api_headers_${_cxx} COMMAND ${CUJIT_API_${_cxx}} ${_api_flags})
  else()
    cujit_require_in_ci("${_cxx}" "api_headers_${_cxx} is not registered")
  endif()
endforeach()
