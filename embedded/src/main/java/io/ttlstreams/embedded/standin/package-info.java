/**
 * The MongoDB stand-in's own layer over mongo-java-server, answering as MongoDB 7.0 does where the project and its
 * users rely on it, all behind {@link io.ttlstreams.embedded.standin.StandInBackend}: one identity (a one-member
 * replica set, or for tests a {@code mongos}, {@link io.ttlstreams.embedded.standin.StandInIdentity}); change streams recorded when written
 * ({@link io.ttlstreams.embedded.standin.ChangeRecorder}) into a bounded history indexed by position
 * ({@link io.ttlstreams.embedded.standin.ChangeHistory}), rendered as MongoDB's change events with pre- and
 * post-images and expanded events ({@link io.ttlstreams.embedded.standin.ChangeEvents}) and read with await getMores
 * ({@link io.ttlstreams.embedded.standin.ChangeStreams}); updates with an aggregation pipeline
 * ({@link io.ttlstreams.embedded.standin.PipelineUpdates}, described by
 * {@link io.ttlstreams.embedded.standin.DocumentDiff}); the commands and error replies mongo-java-server lacks or
 * answers otherwise ({@link io.ttlstreams.embedded.standin.StandInDatabase},
 * {@link io.ttlstreams.embedded.standin.StandInCollection}); sharded collections, their shard key commands and the
 * {@code documentKey} they give events ({@link io.ttlstreams.embedded.standin.ShardKeys}); the {@code errorLabels} a
 * server attaches ({@link io.ttlstreams.embedded.standin.ErrorLabels}) and failures on command, MongoDB's {@code
 * failCommand} fail point ({@link io.ttlstreams.embedded.standin.FailCommand}); what MongoDB enforces, its 16 MB limits
 * ({@link io.ttlstreams.embedded.standin.BsonLimits}) and idle cursor timeout
 * ({@link io.ttlstreams.embedded.standin.IdleCursors}); and how it plays MongoDB
 * ({@link io.ttlstreams.embedded.standin.StandInSettings}): the release ({@link
 * io.ttlstreams.embedded.standin.ServerVersion}) and a clock of its own, which {@code $currentDate} follows too
 * ({@link io.ttlstreams.embedded.standin.CurrentDates}).
 */
package io.ttlstreams.embedded.standin;
