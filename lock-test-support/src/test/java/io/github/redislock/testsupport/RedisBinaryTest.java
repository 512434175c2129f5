package io.github.redislock.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The list of redis-server candidates that the server matrix's legs index into. */
class RedisBinaryTest {

    @TempDir
    Path directory;

    @Test
    void hidingTheInstalledServersLeavesTheEmbeddedJarAlone() {
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.find(
                Map.of("PATH", "/usr/bin:/usr/local/bin", RedisBinary.IGNORE_INSTALLED_VARIABLE, "true"), "Linux", "amd64");
        assertThat(candidates).extracting(RedisBinaryCandidate::source).containsExactly(RedisBinary.Source.EMBEDDED_REDIS_JAR);
    }

    @Test
    void theEnvironmentVariableComesFirstAndTheEmbeddedJarLast() throws IOException {
        Path named = executable(directory.resolve("named"));
        Path onPath = executable(directory.resolve("bin"));
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.find(
                Map.of("PATH", onPath.getParent().toString(), RedisBinary.ENV_VARIABLE, named.toString()), "Linux", "amd64");
        assertThat(candidates.get(0).executable()).isEqualTo(named);
        assertThat(candidates.get(1).executable()).isEqualTo(onPath);
        assertThat(candidates.get(candidates.size() - 1).source()).isEqualTo(RedisBinary.Source.EMBEDDED_REDIS_JAR);
    }

    @Test
    void oneFileReachedTwiceThroughASymlinkIsOneCandidate() throws IOException {
        Path real = executable(directory.resolve("real"));
        Path linkDirectory = Files.createDirectories(directory.resolve("link"));
        Files.createSymbolicLink(linkDirectory.resolve("redis-server"), real);
        List<RedisBinaryCandidate> candidates = RedisBinaryCandidates.find(
                Map.of("PATH", linkDirectory.toString(), RedisBinary.ENV_VARIABLE, real.toString()), "Linux", "amd64");
        assertThat(candidates).filteredOn(candidate -> candidate.executable() != null && candidate.executable().startsWith(directory))
                .hasSize(1);
    }

    private static Path executable(Path parent) throws IOException {
        Files.createDirectories(parent);
        Path file = Files.writeString(parent.resolve("redis-server"), "#!/bin/sh\n");
        assertThat(file.toFile().setExecutable(true)).isTrue();
        return file.toAbsolutePath();
    }
}
