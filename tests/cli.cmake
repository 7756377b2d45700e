# Command-line tools end to end.
add_test(NAME jitrun_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/jitrun_test.sh $<TARGET_FILE:jitrun>)
add_test(NAME jitcache_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/jitcache_test.sh $<TARGET_FILE:jitcache>)
