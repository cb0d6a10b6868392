/**
 * Change streams for the MongoDB stand-in (mongo-java-server) as MongoDB serves them: changes recorded when
 * written ({@link io.ttlstreams.embedded.standin.ChangeRecorder}) into a bounded history indexed by position
 * ({@link io.ttlstreams.embedded.standin.ChangeHistory}), rendered as MongoDB's change events
 * ({@link io.ttlstreams.embedded.standin.ChangeEvents}) and read with await getMores
 * ({@link io.ttlstreams.embedded.standin.ChangeStreams}), all behind
 * {@link io.ttlstreams.embedded.standin.StandInBackend}.
 */
package io.ttlstreams.embedded.standin;
