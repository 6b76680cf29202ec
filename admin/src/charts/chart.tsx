import { useEffect, useId, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { fill, formatCompact, formatDay, formatMoney, formatNumber, words } from '../i18n/words.ts';
import { ScrollTable } from '../ui/scroll.tsx';
import { CsvButton } from './csv.tsx';

export interface Series {
  label: string;
  values: number[];
  /** Line colour: each has at least 3:1 contrast on white, as WCAG asks of graphics. */
  color: string;
  /** A money series (the liability's value) has its own scale, on an axis at the right. */
  money?: string;
}

interface ChartProps {
  title: string;
  days: string[];
  series: Series[];
  /** The CSV's file name. */
  file: string;
}

const HEIGHT = 220;
/** Days are dates in the project's time zone: drawn at midnight UTC and read back in UTC, so no offset moves them. */
const at = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;

/**
 * A chart drawn by uPlot (a canvas, so screen readers get a name and the table), with the same
 * figures in a table under it and as a CSV file. uPlot styles its elements through the style
 * properties (CSSOM), which a `style-src 'self'` policy allows; its stylesheet is in styles.css.
 */
export function Chart({ title, days, series, file }: ChartProps) {
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const element = box.current!;
    const money = series.find((s) => s.money)?.money;
    const plot = new uPlot({
      width: Math.max(200, element.clientWidth),
      height: HEIGHT,
      legend: { show: false },
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
      axes: [
        {},
        { values: (_, ticks) => ticks.map((tick) => formatCompact(tick)), size: 56 },
        ...(money ? [{ scale: 'money', side: 1, grid: { show: false }, size: 64,
          values: (_: uPlot, ticks: number[]) => ticks.map((tick) => formatMoney({ amount: tick, currency: money }, { compact: true })) }] : []),
      ],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: days.length <= 31 }, ...(s.money ? { scale: 'money' } : {}) }))],
    }, [days.map(at), ...series.map((s) => s.values)], element);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(200, element.clientWidth), height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days, series]);
  const header = [words.overview.day, ...series.map((s) => s.label)];
  return (
    <section class="chart" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ul class="legend">
        {series.map((s) => <li key={s.label}><span class="swatch" style={{ background: s.color }} />{s.label}</li>)}
      </ul>
      <div ref={box} class="plot" role="img"
        aria-label={fill(words.overview.chartLabel, { title, from: days[0] ? formatDay(days[0]) : '', to: days.at(-1) ? formatDay(days.at(-1)!) : '' })} />
      {/* The table is made when first shown: a year's rows in every chart's table were most of the page's first render. */}
      <details onToggle={(event) => setShown((shown) => shown || (event.currentTarget as HTMLDetailsElement).open)}>
        <summary>{words.overview.showTable}</summary>
        {shown && <ScrollTable caption={title}>
          <thead><tr>{header.map((h, i) => <th key={h} scope="col" class={i ? 'num' : undefined}>{h}</th>)}</tr></thead>
          <tbody>
            {days.map((day, row) => (
              <tr key={day}><th scope="row">{formatDay(day)}</th>{series.map((s) => <td key={s.label} class="num">{formatNumber(s.values[row]!)}</td>)}</tr>
            ))}
          </tbody>
        </ScrollTable>}
      </details>
      <CsvButton name={file} label={title} header={header} rows={days.map((day, row) => [day, ...series.map((s) => s.values[row]!)])} />
    </section>
  );
}
