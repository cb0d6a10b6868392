package io.ttlstreams.app;

import picocli.CommandLine.IVersionProvider;

/** Reports the version from the jar manifest (unknown when run from classes). */
final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String version = TtlStreamsCli.class.getPackage().getImplementationVersion();
        return new String[] {"ttl-streams " + (version == null ? "(development build)" : version)};
    }
}
