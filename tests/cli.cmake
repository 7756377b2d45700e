# Command-line tools end to end.
add_test(NAME jitrun_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/jitrun_test.sh $<TARGET_FILE:jitrun>)
add_test(NAME numpy_user_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/numpy_user_test.sh $<TARGET_FILE:jitrun>)
add_test(NAME doc_examples_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/doc_examples_test.sh $<TARGET_FILE:jitrun>
  ${PROJECT_SOURCE_DIR})
add_test(NAME jitcache_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/jitcache_test.sh $<TARGET_FILE:jitcache>)
add_test(NAME nvrtc_builtins COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/nvrtc_builtins_test.sh $<TARGET_FILE:jitrun>)
# Runs as it is where the loader cache lacks NVRTC (a runfile toolkit), else needs root or user namespaces.
set_tests_properties(nvrtc_builtins PROPERTIES SKIP_RETURN_CODE 77 LABELS needs_privilege)
add_test(NAME tools_io_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/tools_io_test.sh $<TARGET_FILE:jitrun>
  $<TARGET_FILE:jitcache> ${PROJECT_SOURCE_DIR})
add_test(NAME deploy_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/deploy_test.sh $<TARGET_FILE:jitcache> $<TARGET_FILE:jitrun>)
set_tests_properties(deploy_cli PROPERTIES SKIP_RETURN_CODE 77)
add_test(NAME deploy_flow_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/deploy_flow_test.sh $<TARGET_FILE:jitcache>
  $<TARGET_FILE:jitrun>)
# Random reductions against NumPy (the oracle) through jitrun --device cpu: 1500 programs of a fixed seed.
if(Python3_Interpreter_FOUND)
  add_test(NAME numpy_reductions_diff COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/numpy_reductions_diff.py
    $<TARGET_FILE:jitrun> 1500)
  set_tests_properties(numpy_reductions_diff PROPERTIES SKIP_RETURN_CODE 77)
  # Random elementwise programs against NumPy the same way: 3000 programs of a fixed seed. Its oracle
  # is NumPy 2 (the contract); NumPy 1.x (Debian 12's 1.24) rounds, promotes and multiplies complex
  # numbers by other rules, so the test exists only where NumPy 2 is installed.
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import numpy, sys; sys.exit(int(numpy.__version__.split('.')[0]) < 2)"
    RESULT_VARIABLE cujit_numpy2 OUTPUT_QUIET ERROR_QUIET)
  if(cujit_numpy2 EQUAL 0)
    add_test(NAME numpy_elementwise_diff COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/numpy_elementwise_diff.py
      $<TARGET_FILE:jitrun> 3000)
    set_tests_properties(numpy_elementwise_diff PROPERTIES SKIP_RETURN_CODE 77)
  else()
    message(STATUS "cujit: NumPy 2 not found: the test numpy_elementwise_diff (NumPy 2 is its oracle) is left out")
  endif()
endif()
