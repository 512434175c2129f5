package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README and of {@code docs/} leads somewhere: to a file of the repository
 * and, with a {@code #fragment}, to a heading of that file as GitHub names its anchors. The manual is
 * split over several files, and a section moved or renamed must not leave a dead link behind.
 */
class DocumentationLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

    @Test
    void everyRelativeLinkOfTheManualLeadsToAFileAndAHeadingThatExist() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> dead = new ArrayList<>();
        int checked = 0;
        for (Path page : pages) {
            Matcher link = LINK.matcher(withoutCode(Files.readString(page, StandardCharsets.UTF_8)));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http(s) and mailto links are not the build's to check
                }
                checked++;
                String problem = problem(page, target);
                if (problem != null) {
                    dead.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(checked).as("relative links found").isGreaterThan(10);
        assertThat(dead).as("dead links").isEmpty();
    }

    private static String problem(Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(linked)) {
            return "no such file";
        }
        if (hash < 0) {
            return null;
        }
        if (!linked.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        return anchors(linked).contains(target.substring(hash + 1)) ? null : "no such heading";
    }

    /** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        for (String line : withoutCode(Files.readString(markdown, StandardCharsets.UTF_8)).split("\n")) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                anchors.add(heading.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    /** The text without fenced code blocks, whose brackets and hashes are code, not links or headings. */
    private static String withoutCode(String markdown) {
        StringBuilder text = new StringBuilder();
        boolean code = false;
        for (String line : markdown.split("\n")) {
            if (line.startsWith("```")) {
                code = !code;
            } else if (!code) {
                text.append(line).append('\n');
            }
        }
        return text.toString();
    }
}
