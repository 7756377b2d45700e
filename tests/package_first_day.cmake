# bench/first_day against the installed package (after package.cmake, which
# installs it: the cujit_package fixture). tests/consumers/first_day.sh.
if(NOT CUJIT_INSTALL OR NOT Python3_Interpreter_FOUND OR NOT EXISTS ${PROJECT_SOURCE_DIR}/bench/first_day)
  return()
endif()
add_test(NAME consumer_first_day COMMAND bash ${CUJIT_CONSUMERS}/first_day.sh ${CUJIT_PACKAGE_DIR}/prefix
  ${CUJIT_PACKAGE_DIR}/first_day ${PROJECT_SOURCE_DIR} ${Python3_EXECUTABLE} ${jobs} ${consumer_options})
set_tests_properties(consumer_first_day PROPERTIES FIXTURES_REQUIRED cujit_package SKIP_RETURN_CODE 77)
