// TurboJPEG (libjpeg-turbo's high-level API) for Swift. Errors come back as return codes with
// tjGetErrorStr2, so no setjmp handler is needed, unlike the libjpeg API.
#ifndef CAMRTP_CTURBOJPEG_SHIM_H
#define CAMRTP_CTURBOJPEG_SHIM_H

#include <stddef.h>
#include <turbojpeg.h>

#endif
