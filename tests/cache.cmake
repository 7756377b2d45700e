# Kernel cache: the helper process of the multi-process test, and a CTest
# entry for the cache tests alone.
add_executable(cache_stress ${CMAKE_CURRENT_SOURCE_DIR}/cache_stress.cpp)
target_link_libraries(cache_stress PRIVATE cujit_internal Threads::Threads)
target_include_directories(cache_stress PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/cache)
target_compile_options(cache_stress PRIVATE ${CUJIT_WARNINGS})

add_dependencies(cujit_tests cache_stress)
target_compile_definitions(cujit_tests PRIVATE CUJIT_CACHE_STRESS="$<TARGET_FILE:cache_stress>")
# cujit_tests as a whole is built without the warning flags; hold this file to them.
set_source_files_properties(${CMAKE_CURRENT_SOURCE_DIR}/unit/test_cache.cpp PROPERTIES
  COMPILE_OPTIONS "${CUJIT_WARNINGS}")

add_test(NAME cache COMMAND cujit_tests "[cache]")
