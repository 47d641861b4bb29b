//! Charts as inline SVG, so that a shared report draws them with scripts off and no network.

use std::fmt::Write;

use chrono::{Datelike, NaiveDate, Weekday};

use super::html::escape;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 200.0;
const LEFT: f64 = 64.0;
const BOTTOM: f64 = 24.0;
const TOP: f64 = 12.0;

/// A bar per day with usage on a time axis from `start` to `end`: a day without usage is a gap,
/// and the weeks (Mondays) are labelled.
pub fn day_bars(title: &str, (start, end): (NaiveDate, NaiveDate), points: &[(NaiveDate, f64)], unit: &str) -> String {
    let max = points.iter().map(|(_, value)| *value).fold(0.0, f64::max);
    let mut svg = open(title);
    axis(&mut svg, max, unit);
    let slots = ((end - start).num_days() + 1).max(1);
    let step = (WIDTH - LEFT - 8.0) / slots as f64;
    for (day, value) in points.iter().filter(|(day, _)| (start..=end).contains(day)) {
        let height = if max > 0.0 { value / max * (HEIGHT - TOP - BOTTOM) } else { 0.0 };
        let x = LEFT + (*day - start).num_days() as f64 * step + step * 0.1;
        let _ = write!(
            svg,
            r#"<rect class="bar" x="{x:.1}" y="{:.1}" width="{:.1}" height="{height:.1}"><title>{day}: {} {}</title></rect>"#,
            HEIGHT - BOTTOM - height,
            step * 0.8,
            number(*value),
            escape(unit)
        );
    }
    week_labels(&mut svg, start, slots, step);
    svg.push_str("</svg></figure>");
    svg
}

/// A tick and a label (`Nov 2`) at each Monday from `start` on, every so many weeks when there
/// are more than fit.
fn week_labels(svg: &mut String, start: NaiveDate, slots: i64, step: f64) {
    let weeks = slots / 7 + 1;
    let every = (weeks + 11) / 12;
    let base = HEIGHT - BOTTOM;
    let mondays = (0..slots).filter(|offset| {
        let day = start + chrono::Days::new(*offset as u64);
        day.weekday() == Weekday::Mon && (day - start).num_days() / 7 % every == 0
    });
    for offset in mondays {
        let day = start + chrono::Days::new(offset as u64);
        let x = LEFT + offset as f64 * step;
        let _ = write!(
            svg,
            r#"<line class="axis" x1="{x:.1}" y1="{base}" x2="{x:.1}" y2="{:.1}"/><text class="tick" x="{x:.1}" y="{}">{}</text>"#,
            base + 4.0,
            HEIGHT - 6.0,
            day.format("%b %-d")
        );
    }
}

/// Two bars per label side by side (the first series, then the second, lighter), each with its
/// value as a tooltip.
pub fn paired_bars(title: &str, points: &[(String, f64, f64)], names: (&str, &str), unit: &str) -> String {
    let max = points.iter().map(|(_, first, second)| first.max(*second)).fold(0.0, f64::max);
    let mut svg = open(title);
    axis(&mut svg, max, unit);
    let step = (WIDTH - LEFT - 8.0) / points.len().max(1) as f64;
    for (index, (label, first, second)) in points.iter().enumerate() {
        for (offset, (class, name, value)) in
            [("bar", names.0, first), ("bar second", names.1, second)].into_iter().enumerate()
        {
            let height = if max > 0.0 { value / max * (HEIGHT - TOP - BOTTOM) } else { 0.0 };
            let x = LEFT + index as f64 * step + step * (0.1 + 0.4 * offset as f64);
            let y = HEIGHT - BOTTOM - height;
            let _ = write!(
                svg,
                r#"<rect class="{class}" x="{x:.1}" y="{y:.1}" width="{:.1}" height="{height:.1}"><title>{} {}: {} {}</title></rect>"#,
                step * 0.4,
                escape(label),
                escape(name),
                number(*value),
                escape(unit)
            );
        }
    }
    if let (Some((first, ..)), Some((last, ..))) = (points.first(), points.last()) {
        let last = (points.len() > 1).then_some((last.as_str(), LEFT + points.len() as f64 * step));
        labels(&mut svg, (first, LEFT), last);
    }
    svg.push_str("</svg></figure>");
    svg
}

/// A cumulative line by day, with an allowance line and a dashed projection to the last day.
pub fn cumulative(
    title: &str,
    days: &[(String, f64)],
    allowance: Option<f64>,
    projection: Option<(usize, f64)>,
    last_day: &str,
) -> String {
    let last_index = projection.map_or(days.len().saturating_sub(1), |(index, _)| index);
    let max = days
        .iter()
        .map(|(_, value)| *value)
        .chain(allowance)
        .chain(projection.map(|(_, value)| value))
        .fold(0.0, f64::max);
    let mut svg = open(title);
    axis(&mut svg, max, "credits");
    let slots = (last_index + 1).max(days.len()).max(1) as f64;
    let step = (WIDTH - LEFT - 8.0) / slots;
    let x = |index: usize| LEFT + (index as f64 + 0.5) * step;
    let y = |value: f64| HEIGHT - BOTTOM - if max > 0.0 { value / max * (HEIGHT - TOP - BOTTOM) } else { 0.0 };
    let line: Vec<String> =
        days.iter().enumerate().map(|(index, (_, value))| format!("{:.1},{:.1}", x(index), y(*value))).collect();
    let _ = write!(svg, r#"<polyline class="used" points="{}"/>"#, line.join(" "));
    if let (Some((to, value)), Some((_, last))) = (projection, days.last()) {
        let from = days.len() - 1;
        let _ = write!(
            svg,
            r#"<line class="projection" x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}"/>"#,
            x(from),
            y(*last),
            x(to),
            y(value)
        );
    }
    if let Some(allowance) = allowance {
        let _ = write!(
            svg,
            r#"<line class="allowance" x1="{LEFT}" y1="{0:.1}" x2="{1:.1}" y2="{0:.1}"><title>allowance: {2} credits</title></line>"#,
            y(allowance),
            WIDTH - 8.0,
            number(allowance)
        );
    }
    match days.first().and_then(|(first, _)| crate::time::parse_day(first)) {
        Some(start) => week_labels(&mut svg, start, slots as i64, step),
        None => {
            if let Some((first, _)) = days.first() {
                let last = (last_index > 0).then(|| (last_day, x(last_index) + step / 2.0));
                labels(&mut svg, (first, LEFT), last);
            }
        }
    }
    svg.push_str("</svg></figure>");
    svg
}

/// A chart's figure, named where it is seen (its caption) and for a screen reader (its label).
fn open(title: &str) -> String {
    format!(
        r#"<figure class="chart"><figcaption>{0}</figcaption><svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{0}" xmlns="http://www.w3.org/2000/svg"><title>{0}</title>"#,
        escape(title)
    )
}

fn axis(svg: &mut String, max: f64, unit: &str) {
    let base = HEIGHT - BOTTOM;
    let _ = write!(svg, r#"<line class="axis" x1="{LEFT}" y1="{base}" x2="{}" y2="{base}"/>"#, WIDTH - 8.0);
    let _ = write!(
        svg,
        r#"<text class="tick" x="{}" y="{}" text-anchor="end">{}</text>"#,
        LEFT - 6.0,
        TOP + 8.0,
        number(max)
    );
    let _ =
        write!(svg, r#"<text class="tick" x="{}" y="{base}" text-anchor="end">0 {}</text>"#, LEFT - 6.0, escape(unit));
}

/// The first and last labels under the axis, at their places (a label per day would not fit).
fn labels(svg: &mut String, (first, at): (&str, f64), last: Option<(&str, f64)>) {
    let y = HEIGHT - 6.0;
    let _ = write!(svg, r#"<text class="tick" x="{at:.1}" y="{y}">{}</text>"#, escape(first));
    if let Some((last, at)) = last {
        let _ = write!(svg, r#"<text class="tick" x="{at:.1}" y="{y}" text-anchor="end">{}</text>"#, escape(last));
    }
}

/// Credits and dollars as the page writes them: to the hundredth, thousands apart ("3,600.00").
pub fn hundredths(value: f64) -> String {
    let cents = (value * 100.0).round();
    let whole = number((cents / 100.0).trunc());
    let sign = if cents < 0.0 && whole == "0" { "-" } else { "" };
    format!("{sign}{whole}.{:02}", (cents.abs() % 100.0) as u64)
}

/// A figure as the report writes it: thousands apart, two decimals below 100.
pub fn number(value: f64) -> String {
    if value.fract() != 0.0 && value.abs() < 100.0 {
        return format!("{value:.2}");
    }
    let whole = value.round() as i64;
    let grouped = crate::words::grouped(whole.unsigned_abs());
    if whole < 0 { format!("-{grouped}") } else { grouped }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_people_write_them() {
        assert_eq!(number(1234567.0), "1,234,567");
        assert_eq!(number(12.345), "12.35");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(-1500.0), "-1,500");
        assert_eq!(hundredths(3600.0), "3,600.00");
        assert_eq!(hundredths(0.005), "0.01");
        assert_eq!(hundredths(-0.5), "-0.50");
    }

    #[test]
    fn charts_are_plain_svg_with_escaped_labels() {
        let day = |text: &str| crate::time::parse_day(text).unwrap();
        let points = [(day("2026-11-01"), 10.0), (day("2026-11-20"), 5.0)];
        let svg = day_bars("Tokens <by day>", (day("2026-11-01"), day("2026-11-30")), &points, "<b>");
        assert!(svg.starts_with(r#"<figure class="chart"><figcaption>Tokens &lt;by day&gt;</figcaption><svg"#));
        assert!(svg.ends_with("</svg></figure>"));
        assert!(!svg.contains("<b>") && svg.contains("&lt;b&gt;"));
        // Two bars on a 30-day axis: the second is 19 days to the right; the days between are gaps.
        assert_eq!(svg.matches("<rect").count(), 2);
        let step = (WIDTH - LEFT - 8.0) / 30.0;
        assert!(svg.contains(&format!(r#"x="{:.1}""#, LEFT + 19.0 * step + step * 0.1)));
        // November 2026's Mondays: the 2nd, 9th, 16th, 23rd and 30th.
        for monday in ["Nov 2", "Nov 9", "Nov 16", "Nov 23", "Nov 30"] {
            assert!(svg.contains(&format!(">{monday}</text>")), "{monday} is labelled");
        }
        assert!(!svg.contains(">Nov 1</text>"));
        let line = cumulative("Month", &[("1".into(), 1.0), ("2".into(), 3.0)], Some(10.0), Some((29, 45.0)), "30");
        assert!(line.contains("polyline") && line.contains("projection") && line.contains("allowance"));
    }
}
