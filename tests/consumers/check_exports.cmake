# cmake -DLIBRARY=libcujit.so -P check_exports.cmake
# A shared libcujit exports the public API (include/cujit/, marked CUJIT_API) and
# hides the pipeline's internals.
cmake_policy(VERSION 3.22)
execute_process(COMMAND nm -DC --defined-only ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(rc)
  message(FATAL_ERROR "nm failed on ${LIBRARY}")
endif()
foreach(public "cujit::evaluate(" "cujit::evaluate_split(" "cujit::SplitArray::gather(" "cujit::dtype_name(" "cujit::ElementwiseKernel::ElementwiseKernel("
               "cujit::load_npy(" "cujit::save_npy(" "cujit::dtype_from_numpy(" "cujit::dtype_spelling_problem"
               "cujit::Array::copy_of(" "cujit::from_dlpack(" "typeinfo for cujit::Error")
  string(FIND "${symbols}" "${public}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${LIBRARY} does not export ${public}")
  endif()
endforeach()
foreach(internal "cujit::generate_source(" "cujit::template_text(" "cujit::fail" "fmt::")
  string(FIND "${symbols}" "${internal}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${LIBRARY} exports an internal symbol: ${internal}")
  endif()
endforeach()
string(REGEX MATCHALL "\n" lines "${symbols}")
list(LENGTH lines count)
message(STATUS "${LIBRARY}: ${count} exported symbols, public API only")
