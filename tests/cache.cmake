# Kernel cache: the helper process of the multi-process test, and a CTest
# entry for the cache tests alone.
add_executable(cache_stress ${CMAKE_CURRENT_SOURCE_DIR}/cache_stress.cpp)
target_link_libraries(cache_stress PRIVATE cujit_internal Threads::Threads)
target_include_directories(cache_stress PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_options(cache_stress PRIVATE ${CUJIT_WARNINGS})

add_dependencies(cujit_tests cache_stress)
target_compile_definitions(cujit_tests PRIVATE CUJIT_CACHE_STRESS="$<TARGET_FILE:cache_stress>")
# cujit_tests as a whole is built without the warning flags; hold this file to them.
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cache.cpp PROPERTIES
  COMPILE_OPTIONS "${CUJIT_WARNINGS}")

add_test(NAME cache COMMAND cujit_tests "[cache]~[permissions]")

# Issue 13: the cache's fault tests (also part of `unit`), and the load tests
# (hidden from `unit`; 32 threads, 16 jitcache processes, killed writers),
# each bounded in time so a hang fails instead of stalling CI.
add_dependencies(cujit_tests jitcache)
target_compile_definitions(cujit_tests PRIVATE CUJIT_JITCACHE="$<TARGET_FILE:jitcache>")
add_test(NAME cache_faults COMMAND cujit_tests "[fault]")
add_test(NAME cache_load COMMAND cujit_tests "[load]")
set_tests_properties(cache_faults PROPERTIES TIMEOUT 300)
set_tests_properties(cache_load PROPERTIES TIMEOUT 400 RUN_SERIAL TRUE)

# The cache's concurrency under ThreadSanitizer: the cache sources alone, so it
# builds in seconds rather than as a sanitizer build of the whole project.
# Skipped (not registered) where the compiler cannot link -fsanitize=thread.
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=thread)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=thread)
check_cxx_source_compiles("int main() { return 0; }" CUJIT_HAVE_TSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
# Not inside a sanitizer or fuzz build of the project: their flags and these do not mix.
if(CUJIT_HAVE_TSAN AND NOT CUJIT_SANITIZE AND NOT CUJIT_SANITIZE_THREAD AND NOT CUJIT_BUILD_FUZZ)
  file(GLOB CUJIT_CACHE_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/cache/*.cpp)
  add_executable(cache_tsan ${CMAKE_CURRENT_SOURCE_DIR}/cache_tsan.cpp ${CUJIT_CACHE_SOURCES}
    ${PROJECT_SOURCE_DIR}/src/core/fail.cpp ${PROJECT_SOURCE_DIR}/src/core/number.cpp)
  # include/ for the public headers, the build's include/ for the generated cujit/export.hpp.
  target_include_directories(cache_tsan PRIVATE ${PROJECT_SOURCE_DIR}/src
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_BINARY_DIR}/include)
  target_include_directories(cache_tsan SYSTEM PRIVATE ${XXHASH_INCLUDE_DIR})
  target_compile_options(cache_tsan PRIVATE -fsanitize=thread -O1 -g ${CUJIT_WARNINGS})
  target_link_options(cache_tsan PRIVATE -fsanitize=thread)
  target_link_libraries(cache_tsan PRIVATE fmt::fmt-header-only Threads::Threads)
  target_compile_definitions(cache_tsan PRIVATE CUJIT_STATIC_DEFINE)
  add_dependencies(cujit_tests cache_tsan)
  add_test(NAME cache_tsan COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cache_tsan.sh $<TARGET_FILE:cache_tsan>)
  set_tests_properties(cache_tsan PROPERTIES TIMEOUT 300)
endif()

# The cache's byte parsers (entry decoder, kernel check) under AddressSanitizer
# and UBSan, on damaged real kernels; the rest of cujit linked as it is.
set(CMAKE_REQUIRED_FLAGS "-fsanitize=address,undefined")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=address,undefined")
check_cxx_source_compiles("int main() { return 0; }" CUJIT_HAVE_ASAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(CUJIT_HAVE_ASAN AND NOT CUJIT_SANITIZE AND NOT CUJIT_SANITIZE_THREAD AND NOT CUJIT_BUILD_FUZZ)
  add_executable(cache_asan ${CMAKE_CURRENT_SOURCE_DIR}/cache_asan.cpp ${PROJECT_SOURCE_DIR}/src/cache/kernel_image.cpp
    ${PROJECT_SOURCE_DIR}/src/cache/entry.cpp)
  target_include_directories(cache_asan PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_include_directories(cache_asan SYSTEM PRIVATE ${XXHASH_INCLUDE_DIR})
  target_compile_options(cache_asan PRIVATE -fsanitize=address,undefined -fno-sanitize-recover=all -O1 -g
    ${CUJIT_WARNINGS})
  target_link_options(cache_asan PRIVATE -fsanitize=address,undefined)
  target_link_libraries(cache_asan PRIVATE cujit_internal)
  add_dependencies(cujit_tests cache_asan)
  add_test(NAME cache_asan COMMAND cache_asan)
  # NVRTC's own allocations are not this test's business.
  set_tests_properties(cache_asan PROPERTIES TIMEOUT 300 ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
