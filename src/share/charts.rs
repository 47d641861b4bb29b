//! Charts as inline SVG, so that a shared report draws them with scripts off and no network.

use std::fmt::Write;

use super::html::escape;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 200.0;
const LEFT: f64 = 64.0;
const BOTTOM: f64 = 24.0;
const TOP: f64 = 12.0;

/// A bar per label, with the value's text as each bar's tooltip (`<title>`).
pub fn bars(title: &str, points: &[(String, f64)], unit: &str) -> String {
    let max = points.iter().map(|(_, value)| *value).fold(0.0, f64::max);
    let mut svg = open(title);
    axis(&mut svg, max, unit);
    let plot = WIDTH - LEFT - 8.0;
    let step = plot / points.len().max(1) as f64;
    for (index, (label, value)) in points.iter().enumerate() {
        let height = if max > 0.0 { value / max * (HEIGHT - TOP - BOTTOM) } else { 0.0 };
        let x = LEFT + index as f64 * step + step * 0.1;
        let y = HEIGHT - BOTTOM - height;
        let _ = write!(
            svg,
            r#"<rect class="bar" x="{x:.1}" y="{y:.1}" width="{:.1}" height="{height:.1}"><title>{}: {} {}</title></rect>"#,
            step * 0.8,
            escape(label),
            number(*value),
            escape(unit)
        );
    }
    if let (Some((first, _)), Some((last, _))) = (points.first(), points.last()) {
        let last = (points.len() > 1).then_some((last.as_str(), LEFT + points.len() as f64 * step));
        labels(&mut svg, (first, LEFT), last);
    }
    svg.push_str("</svg>");
    svg
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
    svg.push_str("</svg>");
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
    if let Some((first, _)) = days.first() {
        let last = (last_index > 0).then(|| (last_day, x(last_index) + step / 2.0));
        labels(&mut svg, (first, LEFT), last);
    }
    svg.push_str("</svg>");
    svg
}

fn open(title: &str) -> String {
    format!(
        r#"<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{0}" xmlns="http://www.w3.org/2000/svg"><title>{0}</title>"#,
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
    let digits = whole.unsigned_abs().to_string();
    let mut grouped = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
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
        let svg = bars("Tokens <by day>", &[("2026-11-01".into(), 10.0), ("<b>".into(), 5.0)], "tokens");
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
        assert_eq!(svg.matches("<rect").count(), 2);
        assert!(!svg.contains("<b>") && svg.contains("&lt;b&gt;"));
        let line = cumulative("Month", &[("1".into(), 1.0), ("2".into(), 3.0)], Some(10.0), Some((29, 45.0)), "30");
        assert!(line.contains("polyline") && line.contains("projection") && line.contains("allowance"));
    }
}
