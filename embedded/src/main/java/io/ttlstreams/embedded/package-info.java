/**
 * The local, in-process stack behind {@code ttl-streams run --embedded}, {@code ttl-streams demo} and the
 * integration tests: a MongoDB stand-in ({@link io.ttlstreams.embedded.EmbeddedMongo}, mongo-java-server), a
 * single-node KRaft broker ({@link io.ttlstreams.embedded.EmbeddedKafka}) and a standalone Kafka Connect worker
 * ({@link io.ttlstreams.embedded.EmbeddedConnect}) running the official MongoDB source and sink connectors as
 * plugins, on their own MongoDB driver in class loaders of their own ({@code ConnectPlugins}), wired together by
 * {@link io.ttlstreams.embedded.EmbeddedStack}.
 *
 * <p>No Docker and no network beyond the loopback interface are needed: every component listens on
 * {@code 127.0.0.1} only. Everything here is {@link java.lang.AutoCloseable} and is closed in the reverse order
 * of starting, so a test class can start one stack and leave no threads, ports or files behind.
 *
 * <p>mongo-java-server is not MongoDB, and its own change streams differ from MongoDB's in most fields: the stand-in
 * serves change streams of its own instead ({@link io.ttlstreams.embedded.standin}), so that production connector
 * configurations run unchanged. docs/embedded.md lists where they still differ.
 */
package io.ttlstreams.embedded;
