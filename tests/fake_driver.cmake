# A stand-in libcuda.so.1 (tests/fake_driver/fake_libcuda.cpp) that plays a
# driver with no device, or one whose memory is exhausted, so CI without a GPU
# tests those paths. It lives in a folder of its own and is only ever reached
# by path or through LD_LIBRARY_PATH in the tests below.
add_library(cujit_fake_cuda SHARED ${CMAKE_CURRENT_SOURCE_DIR}/fake_driver/fake_libcuda.cpp)
set_target_properties(cujit_fake_cuda PROPERTIES OUTPUT_NAME cuda VERSION 1 SOVERSION 1
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/fake_driver)
target_include_directories(cujit_fake_cuda SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
add_dependencies(cujit_tests cujit_fake_cuda)
target_compile_definitions(cujit_tests PRIVATE
  CUJIT_FAKE_LIBCUDA="${CMAKE_CURRENT_BINARY_DIR}/fake_driver/libcuda.so.1")
add_test(NAME no_device_cli COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/fake_driver/nodevice_test.sh
  $<TARGET_FILE:jitrun> ${CMAKE_CURRENT_BINARY_DIR}/fake_driver)
set_tests_properties(no_device_cli PROPERTIES TIMEOUT 300)
# A kernel fault and an out-of-memory launch, played by the stand-in driver in
# processes of their own (tests/unit/test_fault_standin.cpp).
add_test(NAME fault_standin COMMAND cujit_tests "[fake_fault]")
add_test(NAME launch_oom_standin COMMAND cujit_tests "[fake_launch_oom]")
set_tests_properties(fault_standin PROPERTIES TIMEOUT 120
  ENVIRONMENT "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake_driver;CUJIT_FAKE_CUDA=fault;CUJIT_CACHE=0")
set_tests_properties(launch_oom_standin PROPERTIES TIMEOUT 120
  ENVIRONMENT "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake_driver;CUJIT_FAKE_CUDA=launch-oom;CUJIT_CACHE=0")
# The memory pool on a stand-in device with memory pools (tests/unit/test_pool_standin.cpp),
# and the same device with the pool turned off.
add_test(NAME pool_standin COMMAND cujit_tests "[fake_pool]")
add_test(NAME pool_off_standin COMMAND cujit_tests "[fake_pool_off]")
set_tests_properties(pool_standin PROPERTIES TIMEOUT 120
  ENVIRONMENT "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake_driver;CUJIT_FAKE_CUDA=pool;CUJIT_CACHE=0")
set_tests_properties(pool_off_standin PROPERTIES TIMEOUT 120
  ENVIRONMENT "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake_driver;CUJIT_FAKE_CUDA=pool;CUJIT_POOL=0;CUJIT_CACHE=0")
# Programs with reductions on the same stand-in device: the GPU back end's
# real passes find every kernel a precompiled manifest with their shapes put
# in the cache (tests/unit/test_reduction_standin.cpp).
add_test(NAME reduce_standin COMMAND cujit_tests "[fake_reduce]")
set_tests_properties(reduce_standin PROPERTIES TIMEOUT 300
  ENVIRONMENT "LD_LIBRARY_PATH=${CMAKE_CURRENT_BINARY_DIR}/fake_driver;CUJIT_FAKE_CUDA=pool;CUJIT_CACHE=0")
