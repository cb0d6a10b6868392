package io.ttlstreams.app;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The properties files the build puts beside the command line's classes ({@code bundled.properties}, {@code
 * build.properties}): one missing is a broken build, not a user's mistake, so it fails unchecked.
 */
final class BuildResources {

    private BuildResources() {}

    /** The properties of {@code resource}, a name relative to this package. */
    static Properties properties(String resource) {
        Properties properties = new Properties();
        try (InputStream in = BuildResources.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the build");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + resource, e);
        }
        return properties;
    }
}
