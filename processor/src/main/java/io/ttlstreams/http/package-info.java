/**
 * The processor's HTTP transport ({@link io.ttlstreams.http.OperationsServer}): binding the port that is Kafka
 * Streams' {@code application.server}, reading each request under bounds of time and size, the optional bearer token
 * ({@link io.ttlstreams.http.HttpAuth}), the threads that answer ({@link io.ttlstreams.http.ExchangeThreads}), and the
 * request, response and JSON writing that every endpoint shares. It knows no endpoint's meaning: the capabilities
 * (health, metrics, queries, status) register their {@link io.ttlstreams.http.Handler}s on it, and nothing here
 * imports them.
 */
package io.ttlstreams.http;
