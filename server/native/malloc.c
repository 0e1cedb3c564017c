// Gives the C heap's free memory back to the system: glibc's malloc_trim(0) returns every whole free page of every
// arena (madvise), not only the free top that free() trims. Node cannot call it otherwise. See malloc.ts.
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  int released = 0;
#if defined(__GLIBC__)
  released = malloc_trim(0);
#endif
  napi_value out;
  napi_get_boolean(env, released != 0, &out);
  return out;
}

static napi_value Available(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
#if defined(__GLIBC__)
  napi_get_boolean(env, 1, &out);
#else
  napi_get_boolean(env, 0, &out);
#endif
  return out;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  napi_create_function(env, "available", NAPI_AUTO_LENGTH, Available, NULL, &fn);
  napi_set_named_property(env, exports, "available", fn);
  return exports;
}
