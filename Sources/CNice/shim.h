// libnice for Swift. GObject's g_signal_connect is a macro and g_object_set is variadic, so each
// signal and property type the ICE agent uses gets a typed static inline wrapper here.
#ifndef CAMRTP_CNICE_SHIM_H
#define CAMRTP_CNICE_SHIM_H

#include <glib.h>
#include <glib-object.h>
#include <gio/gio.h>
#include <nice/agent.h>
#include <nice/nice.h>

/// "candidate-gathering-done": every local candidate of the stream is known.
typedef void (*camrtp_nice_gathering_done_cb)(NiceAgent *agent, guint stream_id, gpointer user_data);
/// "component-state-changed": `state` is a NiceComponentState.
typedef void (*camrtp_nice_state_changed_cb)(NiceAgent *agent, guint stream_id, guint component_id,
                                             guint state, gpointer user_data);
/// "new-candidate-full": one more local candidate (host, server-reflexive).
typedef void (*camrtp_nice_new_candidate_cb)(NiceAgent *agent, NiceCandidate *candidate, gpointer user_data);
/// "new-selected-pair-full": the pair that media now flows on.
typedef void (*camrtp_nice_selected_pair_cb)(NiceAgent *agent, guint stream_id, guint component_id,
                                             NiceCandidate *local, NiceCandidate *remote, gpointer user_data);

static inline gulong camrtp_nice_on_gathering_done(NiceAgent *agent, camrtp_nice_gathering_done_cb callback,
                                                   gpointer user_data) {
    return g_signal_connect(agent, "candidate-gathering-done", G_CALLBACK(callback), user_data);
}

static inline gulong camrtp_nice_on_state_changed(NiceAgent *agent, camrtp_nice_state_changed_cb callback,
                                                  gpointer user_data) {
    return g_signal_connect(agent, "component-state-changed", G_CALLBACK(callback), user_data);
}

static inline gulong camrtp_nice_on_new_candidate(NiceAgent *agent, camrtp_nice_new_candidate_cb callback,
                                                  gpointer user_data) {
    return g_signal_connect(agent, "new-candidate-full", G_CALLBACK(callback), user_data);
}

static inline gulong camrtp_nice_on_selected_pair(NiceAgent *agent, camrtp_nice_selected_pair_cb callback,
                                                  gpointer user_data) {
    return g_signal_connect(agent, "new-selected-pair-full", G_CALLBACK(callback), user_data);
}

/// Disconnects every handler connected with `user_data`, so none fires after teardown starts.
static inline void camrtp_nice_disconnect_all(NiceAgent *agent, gpointer user_data) {
    g_signal_handlers_disconnect_matched(agent, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, user_data);
}

/// Whether this libnice lets consent lapse after RFC 7675's 30 s (section 5.1). libnice 0.1.21
/// gives up 10 s after the last answer to checks it sends every 4 to 6 s and never resends, so a
/// single lost check or answer could fail the pair; 0.1.22 waits 30 s (its commit f456747e).
/// NICE_CHECK_VERSION is a function-like macro.
static inline gboolean camrtp_nice_consent_timeout_is_rfc7675(void) {
    return NICE_CHECK_VERSION(0, 1, 22);
}

static inline void camrtp_nice_set_boolean(NiceAgent *agent, const char *property, gboolean value) {
    g_object_set(agent, property, value, NULL);
}

static inline void camrtp_nice_set_uint(NiceAgent *agent, const char *property, guint value) {
    g_object_set(agent, property, value, NULL);
}

static inline void camrtp_nice_set_string(NiceAgent *agent, const char *property, const char *value) {
    g_object_set(agent, property, value, NULL);
}

#endif
