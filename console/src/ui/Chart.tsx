// A chart of numbers per day (uPlot: small, canvas, no dependencies), always beside the same numbers as a table:
// the table is what a screen reader reads and what the browser tests compare with the API's answer
// (`table[data-chart=<id>]`, one row a day, one cell a series).
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export type Series = { label: string; values: number[] };

const COLOURS = ["#1d4ed8", "#15803d", "#b45309", "#b91c1c", "#7c3aed"];

function seconds(day: string): number {
  return Date.parse(day.length === 10 ? day + "T00:00:00Z" : day) / 1000;
}

export function Chart({ id, title, days, series, height = 220 }: {
  id: string;
  title: string;
  days: string[];
  series: Series[];
  height?: number;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element || days.length === 0) return;
    const plot = new uPlot(
      {
        width: Math.max(280, element.clientWidth),
        height,
        series: [
          {},
          ...series.map((s, n) => ({ label: s.label, stroke: COLOURS[n % COLOURS.length], width: 2, points: { show: days.length < 40 } })),
        ],
        axes: [{}, { size: 50 }],
        scales: { x: { time: true } },
        legend: { show: true },
      },
      [days.map(seconds), ...series.map((s) => s.values)],
      element,
    );
    const resize = () => plot.setSize({ width: Math.max(280, element.clientWidth), height });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.destroy();
    };
  }, [days, series, height]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} class="chart-canvas" aria-hidden="true" />
      <details>
        <summary>The numbers</summary>
        <table data-chart={id}>
          <caption class="sr-only">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {series.map((s) => (
                <th scope="col">{s.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, row) => (
              <tr>
                <th scope="row">{day}</th>
                {series.map((s) => (
                  <td data-series={s.label}>{s.values[row] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
