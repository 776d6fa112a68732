# `ibscope doctor` against the ways the plugin fails to load
# (tests/doctor/test_doctor.py): one ctest test per group, each fix it
# prints run and checked to mend.  tshark runs as nobody under root.
find_package(Python3 COMPONENTS Interpreter)
if(TARGET ibscope AND TARGET ibscope_plugin AND NOT IBSCOPE_SANITIZE AND Python3_Interpreter_FOUND)
  foreach(group root user_ok wrong_level wrong_version unreadable missing no_tshark)
    add_test(NAME doctor.${group}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/doctor/test_doctor.py
                     --build ${CMAKE_BINARY_DIR} ${group})
    set_tests_properties(doctor.${group} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
  endforeach()
endif()
