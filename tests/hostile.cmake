# The hostile-input corpus (tests/hostile): every way in, each case bounded in
# time and memory. Sanitizer builds need unbounded address space.
set(HOSTILE_ARGS)
if(CUJIT_SANITIZE OR CUJIT_SANITIZE_THREAD)
  set(HOSTILE_ARGS --no-memory-limit)
endif()
add_test(NAME hostile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/hostile/run.sh $<TARGET_FILE:jitrun>
  $<TARGET_FILE:jitcache> ${CMAKE_CURRENT_SOURCE_DIR}/hostile/cases.txt ${HOSTILE_ARGS})
