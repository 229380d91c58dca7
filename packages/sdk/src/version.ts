/** The interface version this SDK was generated from (info.version of /v1/openapi.json) and the package version. */
export const API_VERSION = '2.0.0';
export const SDK_VERSION = '2.0.0';
