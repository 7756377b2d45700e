# ThreadSanitizer runs only the concurrency tests (the kernel cache's threads
# and processes): a small binary of those test files, so that the TSan build
# in CI (tools/test.sh) compiles the library and a few files, not the whole
# unit suite. New concurrency tests belong in tests/unit/test_cache*.cpp, or
# are added to the list here.
if(CUJIT_SANITIZE_THREAD)
  file(GLOB THREAD_TEST_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cache*.cpp)
  add_executable(cujit_thread_tests main.cpp ${THREAD_TEST_SOURCES})
  target_link_libraries(cujit_thread_tests PRIVATE cujit ${CUJIT_CATCH} Threads::Threads)
  target_include_directories(cujit_thread_tests PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/cache
    ${CMAKE_CURRENT_SOURCE_DIR})
  target_include_directories(cujit_thread_tests SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS} ${XXHASH_INCLUDE_DIR})
  target_compile_definitions(cujit_thread_tests PRIVATE CUJIT_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data"
    CUJIT_BINARY_DIR="${PROJECT_BINARY_DIR}" CUJIT_CACHE_STRESS="$<TARGET_FILE:cache_stress>")
  add_dependencies(cujit_thread_tests cache_stress)
  # Catch2 2.x runs hidden cases under a negative filter: "~[.]" keeps them out, as
  # the `cache` entry runs them (they need jitcache, which this build does not make).
  add_test(NAME threads COMMAND cujit_thread_tests "~[permissions]~[.]")
endif()
